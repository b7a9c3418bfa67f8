//! Child processes in their own process groups, so a whole tree (cargo and its rustc
//! children, a bench binary and anything it started) can be signalled and killed at once, and
//! tied to the life of this process, so that none outlives it, whatever ends it.
//!
//! Every live group is registered in [`Children`]; `kill_all` kills them all. A [`Group`]
//! kills its process group when dropped, so no path through the code leaves a benchmark
//! running behind the daemon.
//!
//! When this process is killed outright (SIGKILL, the OOM killer), no code of ours runs. On
//! Linux each child therefore asks the kernel, between `fork` and `exec`, for SIGKILL when its
//! parent dies (`PR_SET_PDEATHSIG`). The kernel sends it when the *thread* that forked the child
//! ends, not the process: a child forked by a runtime worker that the runtime later retires
//! would be killed at that moment. So every child is forked by one thread made for it that
//! lives as long as the process ([`spawner`]). A parent that died between `fork` and the
//! `prctl` call would never send the signal; the child checks its parent afterwards and
//! refuses to start. Processes a child starts itself (rustc under cargo, say) are not covered
//! by the signal: they are killed with the group while this process lives; after a SIGKILL
//! of this process they finish what they were doing (a compiler finishes its crate) and exit.

use std::collections::HashSet;
use std::io;
use std::sync::{mpsc as std_mpsc, Arc, Mutex, OnceLock};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// The process groups the daemon has started and not yet reaped.
#[derive(Debug, Clone, Default)]
pub struct Children {
    groups: Arc<Mutex<HashSet<i32>>>,
}

impl Children {
    /// Kills every registered process group (at shutdown, or on a second signal).
    pub fn kill_all(&self) {
        self.signal_all(Signal::SIGKILL);
    }

    /// Sends `signal` to every registered process group.
    pub fn signal_all(&self, signal: Signal) {
        let groups: Vec<i32> = self
            .groups
            .lock()
            .map(|g| g.iter().copied().collect())
            .unwrap_or_default();
        for group in groups {
            let _ = killpg(Pid::from_raw(group), signal);
        }
    }

    /// Starts `command` as the leader of a new process group that dies with this process.
    pub async fn spawn(&self, mut command: Command) -> io::Result<(Child, Group)> {
        command.process_group(0).kill_on_drop(true);
        die_with_parent(&mut command);
        let (reply, answer) = oneshot::channel();
        let request = SpawnRequest {
            command,
            runtime: tokio::runtime::Handle::current(),
            reply,
        };
        spawner()
            .send(request)
            .map_err(|_| io::Error::other("the process spawner thread has stopped"))?;
        let child = answer
            .await
            .map_err(|_| io::Error::other("the process spawner thread has stopped"))??;
        let pid = child
            .id()
            .ok_or_else(|| io::Error::other("the child exited before its id was read"))?
            as i32;
        if let Ok(mut groups) = self.groups.lock() {
            groups.insert(pid);
        }
        Ok((
            child,
            Group {
                pid,
                children: self.clone(),
            },
        ))
    }
}

/// Asks for SIGKILL when the parent dies (Linux), checked against a parent that died first.
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = nix::unistd::getpid();
        // SAFETY: the hook runs in the child between fork and exec. It makes two system calls
        // (prctl, getppid), both async-signal-safe, and allocates nothing: errors are raw OS
        // errors (ESRCH: the parent ended before the child could ask to die with it).
        unsafe {
            command.pre_exec(move || {
                nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
                    .map_err(|e| io::Error::from_raw_os_error(e as i32))?;
                if nix::unistd::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(
                        nix::errno::Errno::ESRCH as i32,
                    ));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// A command for the spawner thread, with the runtime whose reaper will own the child.
struct SpawnRequest {
    command: Command,
    runtime: tokio::runtime::Handle,
    reply: oneshot::Sender<io::Result<Child>>,
}

/// The thread that forks every child. It never ends (its channel's sender is static), so a
/// parent-death signal fires only when the process itself ends.
fn spawner() -> &'static std_mpsc::Sender<SpawnRequest> {
    static SPAWNER: OnceLock<std_mpsc::Sender<SpawnRequest>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = std_mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("knotmeter-spawner".into())
            .spawn(move || {
                for SpawnRequest {
                    mut command,
                    runtime,
                    reply,
                } in rx
                {
                    let _entered = runtime.enter();
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("the process spawner thread starts");
        tx
    })
}

/// A live process group; dropping it kills the group.
#[derive(Debug)]
pub struct Group {
    pid: i32,
    children: Children,
}

impl Group {
    /// Sends `signal` to every process of the group.
    pub fn signal(&self, signal: Signal) {
        let _ = killpg(Pid::from_raw(self.pid), signal);
    }

    /// Once the group's leader has exited: kills the processes it left in its group (as
    /// dropping the group would), so that pipes they inherited close. True when there were
    /// any (a child that has just exited and is not yet reaped counts too).
    pub fn kill_leftovers(&self) -> bool {
        killpg(Pid::from_raw(self.pid), Signal::SIGKILL).is_ok()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
        if let Ok(mut groups) = self.children.groups.lock() {
            groups.remove(&self.pid);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::Stdio;
    use std::time::Duration;

    use super::*;

    /// `prctl(PR_GET_PDEATHSIG)` as the child itself reports it.
    const REPORT_DEATH_SIGNAL: &str =
        "import ctypes; libc = ctypes.CDLL(None); s = ctypes.c_int(); \
        libc.prctl(2, ctypes.byref(s)); print(s.value, flush=True); import time; time.sleep(30)";

    fn alive(pid: u32) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // A zombie (`Z`) has ended; only the reaper has not looked yet.
        !stat.is_empty()
            && !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn children_ask_for_sigkill_when_the_parent_dies_and_lead_their_group() {
        let children = Children::default();
        let mut command = Command::new("python3");
        command
            .args(["-c", REPORT_DEATH_SIGNAL])
            .stdout(Stdio::piped());
        let (mut child, group) = children.spawn(command).await.unwrap();
        let pid = child.id().unwrap();
        let mut line = String::new();
        use tokio::io::AsyncBufReadExt;
        tokio::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .await
            .unwrap();
        assert_eq!(line.trim(), (Signal::SIGKILL as i32).to_string());
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(
            fields[2].parse::<u32>().unwrap(),
            pid,
            "its own process group"
        );
        drop(group);
        child.wait().await.unwrap();
    }

    /// The kernel sends the parent-death signal when the forking *thread* ends: a child asked
    /// for from a short-lived thread must not die with that thread.
    #[test]
    fn a_child_outlives_the_thread_that_asked_for_it() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        let children = Children::default();
        let asked = children.clone();
        let (child, group) = std::thread::spawn(move || {
            let mut command = Command::new("sleep");
            command.arg("30");
            // `block_on` from this thread: without the spawner thread, the fork happens here.
            handle.block_on(asked.spawn(command)).unwrap()
        })
        .join()
        .unwrap();
        let pid = child.id().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(alive(pid), "the child died with the thread that started it");
        drop(group);
        drop(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid), "dropping the group kills it");
    }
}
