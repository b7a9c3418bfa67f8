// Whether the daemon is up, as the language client's own state says it. vscode-languageclient
// restarts a daemon that exits unexpectedly by itself (Running → Stopped → Starting → Running),
// without the extension's `restart()`: runs in progress then have no daemon left to end them,
// and the new daemon has not been asked for the tree. Apart from `vscode` so that it can be
// tested with a fake client.

/** The part of a language client this needs: its state changes, as running or not. */
export interface ClientStates {
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => void): { dispose(): void };
}

/**
 * Calls `changed(false)` when a started client stops (its daemon exited, crashed or was
 * stopped), and `changed(true)` when it runs again after that (restarted by the client).
 * `running` is the public state value of a running client (`lc.State.Running`).
 */
export function watchClientLife(client: ClientStates, running: number, changed: (up: boolean) => void): { dispose(): void } {
  let wasDown = false;
  return client.onDidChangeState(({ oldState, newState }) => {
    if (oldState === running && newState !== running) {
      wasDown = true;
      changed(false);
    } else if (newState === running && wasDown) {
      wasDown = false;
      changed(true);
    }
  });
}
