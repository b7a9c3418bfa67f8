//! Child processes in their own process groups, so a whole tree (cargo and its rustc
//! children, a bench binary and anything it started) can be signalled and killed at once.
//!
//! Every live group is registered in [`Children`]; `shutdown` kills them all. A [`Group`]
//! kills its process group when dropped, so no path through the code leaves a benchmark
//! running behind the daemon.

use std::collections::HashSet;
use std::io;
use std::sync::{Arc, Mutex};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::process::{Child, Command};

/// The process groups the daemon has started and not yet reaped.
#[derive(Debug, Clone, Default)]
pub struct Children {
    groups: Arc<Mutex<HashSet<i32>>>,
}

impl Children {
    /// Kills every registered process group (at shutdown).
    pub fn kill_all(&self) {
        let groups: Vec<i32> = self
            .groups
            .lock()
            .map(|g| g.iter().copied().collect())
            .unwrap_or_default();
        for group in groups {
            let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
        }
    }

    /// Starts `command` as the leader of a new process group.
    pub fn spawn(&self, command: &mut Command) -> io::Result<(Child, Group)> {
        command.process_group(0).kill_on_drop(true);
        let child = command.spawn()?;
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
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
        if let Ok(mut groups) = self.children.groups.lock() {
            groups.remove(&self.pid);
        }
    }
}
