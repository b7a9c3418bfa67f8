//! Watching the workspace's sources for changes made outside the editor, debounced: a burst
//! of changes (a `git checkout`, a formatter over the tree) arrives as one batch once the files
//! have been quiet for [`QUIET`].
//!
//! Only the directories that can hold sources are watched: the workspace is walked with the
//! `ignore` crate, so directories `.gitignore` (and `.ignore`) leave out, hidden ones such as
//! `.git`, the target directory and any directory cargo marked as a build directory (a
//! `CACHEDIR.TAG` file: other packages' `target/`) are never watched. A directory created later
//! is walked and watched the same way. On Linux each directory costs one inotify watch; when the
//! system refuses one (its `fs.inotify.max_user_watches` limit), the watch falls back to
//! polling every [`POLL`] with the same rules, and says so once ([`Notice::Polling`]): never a
//! daemon that silently stopped seeing changes. `KNOTMETER_WATCH_LIMIT=N` caps the directories
//! watched natively (to leave the system's watches to other tools); beyond it the same
//! fallback applies.
//!
//! Only `.rs` files and `Cargo.toml` manifests are reported. Files the editor holds are reported
//! too, but discovery keeps the editor's text for them until they are closed.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant, SystemTime};

use notify::{RecursiveMode, Watcher as _};
use tokio::sync::mpsc;

/// How long the files must be quiet before a batch is delivered.
pub const QUIET: Duration = Duration::from_millis(100);

/// How often the sources are scanned when the system refuses watches.
pub const POLL: Duration = Duration::from_secs(1);

/// The environment variable that caps the directories watched natively.
pub const LIMIT_ENV: &str = "KNOTMETER_WATCH_LIMIT";

/// What the watch reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// These files changed (a debounced batch).
    Changed(Vec<PathBuf>),
    /// Native watching was refused; the sources are polled from now on. The text says why
    /// and what to do.
    Polling(String),
}

/// A running watch: it stops when this is dropped.
#[derive(Debug)]
pub struct Watch {
    stop: std_mpsc::Sender<Signal>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.stop.send(Signal::Stop);
    }
}

enum Signal {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// Watches the sources under `root` (the target directory `target_dir` left out) from a thread
/// of its own, sending what changed to `out`. Returns once the directories are watched (or
/// the fallback to polling is decided), so that a change made after it is seen.
pub fn spawn(root: &Path, target_dir: &Path, out: mpsc::UnboundedSender<Notice>) -> Watch {
    let limit = match parse_limit(std::env::var(LIMIT_ENV).ok().as_deref()) {
        Ok(limit) => limit,
        Err(message) => {
            tracing::warn!("{message}");
            None
        }
    };
    spawn_with(root, target_dir, out, limit)
}

/// [`LIMIT_ENV`]'s value: `None` when unset or empty; an error naming the value when it is not
/// a number of directories.
fn parse_limit(value: Option<&str>) -> Result<Option<usize>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v.parse::<usize>().map(Some).map_err(|_| {
            format!(
                "{LIMIT_ENV}=\"{v}\" is not a number of directories (such as 4096); \
                 ignored: the sources are watched without a cap"
            )
        }),
    }
}

/// [`spawn`] with an explicit cap on native watches.
pub fn spawn_with(
    root: &Path,
    target_dir: &Path,
    out: mpsc::UnboundedSender<Notice>,
    limit: Option<usize>,
) -> Watch {
    let (tx, rx) = std_mpsc::channel();
    let rules = Rules {
        root: root.to_path_buf(),
        target_dir: target_dir.to_path_buf(),
    };
    let events = tx.clone();
    let (ready_tx, ready) = std_mpsc::channel();
    std::thread::Builder::new()
        .name("knotmeter-watch".into())
        .spawn(move || watch_loop(rules, events, rx, out, limit, ready_tx))
        .expect("a thread can be started");
    let _ = ready.recv();
    Watch { stop: tx }
}

/// Which directories are watched and which files matter.
#[derive(Debug, Clone)]
struct Rules {
    root: PathBuf,
    target_dir: PathBuf,
}

impl Rules {
    /// A walk under `dir` that skips what is never watched.
    fn walk(&self, dir: &Path) -> ignore::Walk {
        let target_dir = self.target_dir.clone();
        ignore::WalkBuilder::new(dir)
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                !(is_dir
                    && (entry.path() == target_dir || entry.path().join("CACHEDIR.TAG").exists()))
            })
            .build()
    }

    /// Every directory to watch under `dir` (itself included), in walk order.
    fn dirs(&self, dir: &Path) -> Vec<PathBuf> {
        self.walk(dir)
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
            .map(|e| e.into_path())
            .collect()
    }

    /// The files that matter under the root, with their modification time and length.
    fn stamps(&self) -> HashMap<PathBuf, (Option<SystemTime>, u64)> {
        self.walk(&self.root)
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && relevant(e.path()))
            .filter_map(|e| {
                let metadata = e.metadata().ok()?;
                Some((e.into_path(), (metadata.modified().ok(), metadata.len())))
            })
            .collect()
    }

    /// Whether a reported path matters.
    fn matters(&self, path: &Path) -> bool {
        !path.starts_with(&self.target_dir)
            && !path.components().any(|c| c.as_os_str() == ".git")
            && relevant(path)
    }
}

/// Rust sources and manifests.
fn relevant(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
        || path.file_name().is_some_and(|n| n == "Cargo.toml")
}

/// Something that watches one directory at a time (the OS's watcher, or a cap in front of it).
trait DirWatcher {
    fn watch_dir(&mut self, dir: &Path) -> notify::Result<()>;
    /// Stops watching `dir` (gone, or moved away); nothing if it was not watched.
    fn unwatch_dir(&mut self, dir: &Path);
}

impl DirWatcher for notify::RecommendedWatcher {
    fn watch_dir(&mut self, dir: &Path) -> notify::Result<()> {
        // inotify watches one directory per watch; the other backends watch trees natively
        // and need no walk.
        let mode = if cfg!(any(target_os = "linux", target_os = "android")) {
            RecursiveMode::NonRecursive
        } else {
            RecursiveMode::Recursive
        };
        self.watch(dir, mode)
    }

    fn unwatch_dir(&mut self, dir: &Path) {
        // The OS drops the watch of a deleted directory itself: an error here says only that.
        let _ = self.unwatch(dir);
    }
}

/// At most `limit` directories, then the same error the OS gives when its limit is reached.
struct Capped<W> {
    inner: W,
    limit: Option<usize>,
    watched: usize,
}

impl<W: DirWatcher> DirWatcher for Capped<W> {
    fn watch_dir(&mut self, dir: &Path) -> notify::Result<()> {
        if self.limit.is_some_and(|l| self.watched >= l) {
            return Err(notify::Error::new(notify::ErrorKind::MaxFilesWatch));
        }
        self.inner.watch_dir(dir)?;
        self.watched += 1;
        Ok(())
    }

    fn unwatch_dir(&mut self, dir: &Path) {
        self.inner.unwatch_dir(dir);
        self.watched = self.watched.saturating_sub(1);
    }
}

/// A Linux inotify limit, as `/proc/sys/fs/inotify/NAME` gives it.
fn inotify_limit(name: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/fs/inotify/{name}"))
        .map(|v| v.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Whether starting the watcher failed for lack of an inotify instance (`EMFILE` from
/// `inotify_init`: the user's `fs.inotify.max_user_instances`, which editors, language servers
/// and file sync tools share, is used up).
fn out_of_instances(error: &notify::Error) -> bool {
    cfg!(any(target_os = "linux", target_os = "android"))
        && matches!(&error.kind, notify::ErrorKind::Io(io) if io.raw_os_error() == Some(nix::libc::EMFILE))
}

/// Why a directory could not be watched, in words a user can act on.
fn refusal(error: &notify::Error, watched: usize, wanted: usize, capped: bool) -> String {
    let instances = out_of_instances(error);
    let why = match (&error.kind, capped) {
        (notify::ErrorKind::MaxFilesWatch, true) => {
            format!("{LIMIT_ENV} allows {watched} directories and the sources have {wanted}")
        }
        (notify::ErrorKind::MaxFilesWatch, false) => format!(
            "the system refused more file watches after {watched} of {wanted} directories \
             (fs.inotify.max_user_watches is {}; other programs use watches too)",
            inotify_limit("max_user_watches")
        ),
        _ if instances => format!(
            "the system refused a file watcher ({error}: fs.inotify.max_user_instances is {}, \
             and every program that watches files uses some)",
            inotify_limit("max_user_instances")
        ),
        _ => format!("watching the sources failed ({error})"),
    };
    let fix = if capped {
        format!("unset {LIMIT_ENV} or raise it")
    } else if instances {
        "raise the limit, for example `sudo sysctl fs.inotify.max_user_instances=1024`, and \
         restart the daemon"
            .to_owned()
    } else {
        "raise the limit, for example `sudo sysctl fs.inotify.max_user_watches=524288`, and \
         restart the daemon"
            .to_owned()
    };
    format!(
        "knotmeter: {why}; files changed outside the editor are now found by scanning the \
         sources every {} s. To watch them natively, {fix}.",
        POLL.as_secs()
    )
}

fn watch_loop(
    rules: Rules,
    events: std_mpsc::Sender<Signal>,
    rx: std_mpsc::Receiver<Signal>,
    out: mpsc::UnboundedSender<Notice>,
    limit: Option<usize>,
    ready: std_mpsc::Sender<()>,
) {
    let handler = move |event| {
        let _ = events.send(Signal::Event(event));
    };
    let native = notify::recommended_watcher(handler).map(|inner| Capped {
        inner,
        limit,
        watched: 0,
    });
    let watcher = match native {
        Ok(watcher) => Some(watcher),
        Err(e) => {
            let message = refusal(&e, 0, 0, false);
            tracing::warn!("{message}");
            let _ = out.send(Notice::Polling(message));
            None
        }
    };
    let mut watching = Watching::start(rules, watcher, out, limit);
    let _ = ready.send(());
    loop {
        match rx.recv_timeout(watching.wait()) {
            Ok(Signal::Stop) | Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
            Ok(Signal::Event(Ok(event))) => watching.event(event),
            Ok(Signal::Event(Err(e))) => tracing::debug!("watch: {e}"),
            Err(std_mpsc::RecvTimeoutError::Timeout) => {
                if !watching.quiet() {
                    return;
                }
            }
        }
    }
}

/// The watch thread's state: the native watcher (`None` once it fell back to polling), the
/// directories it watches, the files' stamps while polling, the changed paths not yet sent.
struct Watching<W> {
    rules: Rules,
    watcher: Option<W>,
    watched: HashSet<PathBuf>,
    stamps: HashMap<PathBuf, (Option<SystemTime>, u64)>,
    batch: BTreeSet<PathBuf>,
    last_poll: Instant,
    out: mpsc::UnboundedSender<Notice>,
    limit: Option<usize>,
}

impl<W: DirWatcher> Watching<W> {
    /// Watches the whole tree under the rules' root, or polls it when that is refused.
    fn start(
        rules: Rules,
        mut watcher: Option<W>,
        out: mpsc::UnboundedSender<Notice>,
        limit: Option<usize>,
    ) -> Self {
        let mut watched: HashSet<PathBuf> = HashSet::new();
        if let Some(w) = &mut watcher {
            if let Err(message) = watch_all(w, &rules, &rules.root, &mut watched, limit.is_some()) {
                let _ = out.send(Notice::Polling(message));
                watcher = None;
            }
        }
        let stamps = if watcher.is_none() {
            rules.stamps()
        } else {
            HashMap::new()
        };
        Self {
            rules,
            watcher,
            watched,
            stamps,
            batch: BTreeSet::new(),
            last_poll: Instant::now(),
            out,
            limit,
        }
    }

    /// How long to wait for the next event: until the next poll, until a batch is quiet, or
    /// an hour when there is nothing to do.
    fn wait(&self) -> Duration {
        if self.watcher.is_none() {
            POLL.saturating_sub(self.last_poll.elapsed())
        } else if self.batch.is_empty() {
            Duration::from_secs(3600)
        } else {
            QUIET
        }
    }

    /// A native event: its paths join the batch; a directory gone is forgotten, a new one
    /// watched with what it already holds.
    fn event(&mut self, event: notify::Event) {
        if event.kind.is_access() {
            return;
        }
        let removal = event.kind.is_remove();
        for path in event.paths {
            if let Some(w) = &mut self.watcher {
                // A watched directory deleted or moved away: forgotten, so that one made
                // again under its name (a `git checkout`) is watched afresh.
                if removal || !path.exists() {
                    forget(w, &mut self.watched, &path);
                }
                // A new directory (created, or moved in): watch it and what it holds.
                if path.is_dir() && !self.watched.contains(&path) && !ignored(&self.rules, &path) {
                    self.watch_new_directory(&path);
                }
            }
            if self.rules.matters(&path) {
                self.batch.insert(path);
            }
        }
    }

    /// Watches `dir`, a directory that appeared, and adds the files it already holds (written
    /// before the watch existed); falls back to polling when the watch is refused.
    fn watch_new_directory(&mut self, dir: &Path) {
        let Some(w) = &mut self.watcher else {
            return;
        };
        if let Err(message) =
            watch_all(w, &self.rules, dir, &mut self.watched, self.limit.is_some())
        {
            let _ = self.out.send(Notice::Polling(message));
            self.stamps = self.rules.stamps();
            self.last_poll = Instant::now();
            self.watcher = None;
        }
        for entry in self.rules.walk(dir).flatten() {
            if self.rules.matters(entry.path()) {
                self.batch.insert(entry.into_path());
            }
        }
    }

    /// Nothing happened for a while: polls when polling, and sends the batch. `false` when
    /// nobody listens any more.
    fn quiet(&mut self) -> bool {
        if self.watcher.is_none() && self.last_poll.elapsed() >= POLL {
            let fresh = self.rules.stamps();
            for (path, stamp) in &fresh {
                if self.stamps.get(path) != Some(stamp) {
                    self.batch.insert(path.clone());
                }
            }
            for path in self.stamps.keys() {
                if !fresh.contains_key(path) {
                    self.batch.insert(path.clone());
                }
            }
            self.stamps = fresh;
            self.last_poll = Instant::now();
        }
        self.batch.is_empty()
            || self
                .out
                .send(Notice::Changed(
                    std::mem::take(&mut self.batch).into_iter().collect(),
                ))
                .is_ok()
    }
}

/// Stops watching `gone` and every directory watched below it, if `gone` was watched: a
/// deleted directory's watch is dropped by the OS, and one made again under the same name must
/// be watched anew.
fn forget(watcher: &mut impl DirWatcher, watched: &mut HashSet<PathBuf>, gone: &Path) {
    if !watched.contains(gone) {
        return;
    }
    let below: Vec<PathBuf> = watched
        .iter()
        .filter(|dir| dir.starts_with(gone))
        .cloned()
        .collect();
    for dir in below {
        watched.remove(&dir);
        watcher.unwatch_dir(&dir);
    }
}

/// Whether `dir` is left out by the rules (looked at from its parent's walk).
fn ignored(rules: &Rules, dir: &Path) -> bool {
    let Some(parent) = dir.parent() else {
        return false;
    };
    if !dir.starts_with(&rules.root) {
        return true;
    }
    !ignore::WalkBuilder::new(parent)
        .require_git(false)
        .max_depth(Some(1))
        .filter_entry({
            let target_dir = rules.target_dir.clone();
            move |entry| !(entry.path() == target_dir || entry.path().join("CACHEDIR.TAG").exists())
        })
        .build()
        .flatten()
        .any(|e| e.path() == dir)
}

/// Watches every directory under `dir`; on a refusal, the message to show.
///
/// A directory is listed before its watch takes hold, so one made in between (`mkdir -p a/b`
/// seen at `a`) gives no event: the walk is repeated until it finds nothing new, each listing
/// made after the watches of the one before.
fn watch_all(
    watcher: &mut impl DirWatcher,
    rules: &Rules,
    dir: &Path,
    watched: &mut HashSet<PathBuf>,
    capped: bool,
) -> Result<(), String> {
    if !cfg!(any(target_os = "linux", target_os = "android")) {
        // The other backends watch the tree natively.
        return watch_one(watcher, dir, watched, watched.len() + 1, capped);
    }
    loop {
        let dirs = rules.dirs(dir);
        let fresh: Vec<PathBuf> = dirs
            .iter()
            .filter(|d| !watched.contains(*d))
            .cloned()
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let wanted = watched.len() + fresh.len();
        for dir in fresh {
            watch_one(watcher, &dir, watched, wanted, capped)?;
        }
    }
}

/// Watches one directory, or says why it could not be.
fn watch_one(
    watcher: &mut impl DirWatcher,
    dir: &Path,
    watched: &mut HashSet<PathBuf>,
    wanted: usize,
    capped: bool,
) -> Result<(), String> {
    if watched.contains(dir) {
        return Ok(());
    }
    watcher.watch_dir(dir).map_err(|e| {
        let message = refusal(&e, watched.len(), wanted, capped);
        tracing::warn!("{message}");
        message
    })?;
    watched.insert(dir.to_path_buf());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in [
            "benches/nested",
            "src",
            "target/debug/build/x",
            "vendor-out",
            "crates/other/target/debug",
            "ignored/deep",
            ".git/objects",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".gitignore"), "/ignored\n").unwrap();
        std::fs::write(root.join("crates/other/target/CACHEDIR.TAG"), "x").unwrap();
        std::fs::write(root.join("vendor-out/CACHEDIR.TAG"), "x").unwrap();
        std::fs::write(root.join("benches/a.rs"), "").unwrap();
        (dir, root)
    }

    fn relative(root: &Path, dirs: Vec<PathBuf>) -> Vec<String> {
        let mut out: Vec<String> = dirs
            .iter()
            .map(|d| d.strip_prefix(root).unwrap().display().to_string())
            .collect();
        out.sort();
        out
    }

    /// Only source directories are watched: not the target directory, not build directories
    /// cargo tagged, not what `.gitignore` leaves out, not `.git`.
    #[test]
    fn only_source_directories_are_watched() {
        let (_dir, root) = tree();
        let rules = Rules {
            root: root.clone(),
            target_dir: root.join("target"),
        };
        assert_eq!(
            relative(&root, rules.dirs(&root)),
            [
                "",
                "benches",
                "benches/nested",
                "crates",
                "crates/other",
                "src"
            ]
        );
        assert!(rules.matters(&root.join("benches/a.rs")));
        assert!(rules.matters(&root.join("crates/other/Cargo.toml")));
        assert!(!rules.matters(&root.join("target/debug/build/x/out.rs")));
        assert!(!rules.matters(&root.join("benches/notes.md")));
        assert!(ignored(&rules, &root.join("ignored")));
        assert!(ignored(&rules, &root.join("vendor-out")));
        assert!(!ignored(&rules, &root.join("benches/nested")));
    }

    struct Refusing {
        after: usize,
        calls: usize,
    }

    impl DirWatcher for Refusing {
        fn watch_dir(&mut self, _: &Path) -> notify::Result<()> {
            self.calls += 1;
            if self.calls > self.after {
                return Err(notify::Error::new(notify::ErrorKind::MaxFilesWatch));
            }
            Ok(())
        }

        fn unwatch_dir(&mut self, _: &Path) {}
    }

    /// Makes a directory the moment another is watched: a directory created between the walk
    /// that lists a new directory and the watch put on it (`mkdir -p a/b` seen at `a`).
    struct MakesOnWatch {
        on: PathBuf,
        make: PathBuf,
    }

    impl DirWatcher for MakesOnWatch {
        fn watch_dir(&mut self, dir: &Path) -> notify::Result<()> {
            if dir == self.on {
                std::fs::create_dir_all(&self.make).unwrap();
            }
            Ok(())
        }

        fn unwatch_dir(&mut self, _: &Path) {}
    }

    /// A directory made inside a new one before the new one's watch took hold is watched
    /// too: it was listed before watching, so `mkdir -p` under load could leave the deeper
    /// directory unwatched, and changes in it went unseen (CI, stop 28).
    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn a_directory_made_while_its_parent_is_being_watched_is_watched() {
        let (_dir, root) = tree();
        let rules = Rules {
            root: root.clone(),
            target_dir: root.join("target"),
        };
        let fresh = root.join("benches/fresh");
        std::fs::create_dir(&fresh).unwrap();
        let mut watcher = MakesOnWatch {
            on: fresh.clone(),
            make: fresh.join("deeper"),
        };
        let mut watched = HashSet::new();
        watch_all(&mut watcher, &rules, &fresh, &mut watched, false).unwrap();
        assert!(watched.contains(&fresh.join("deeper")), "{watched:?}");
    }

    /// The OS refusing a watch is said with what to do (it was a silent daemon without watching).
    #[test]
    fn a_refused_watch_is_said_with_the_limit_and_the_fix() {
        let (_dir, root) = tree();
        let rules = Rules {
            root: root.clone(),
            target_dir: root.join("target"),
        };
        let mut watched = HashSet::new();
        let message = watch_all(
            &mut Refusing { after: 2, calls: 0 },
            &rules,
            &root,
            &mut watched,
            false,
        )
        .unwrap_err();
        assert_eq!(watched.len(), 2);
        assert!(
            message.contains("refused more file watches after 2 of 6"),
            "{message}"
        );
        assert!(message.contains("fs.inotify.max_user_watches"), "{message}");
        assert!(
            message.contains("scanning the sources every 1 s"),
            "{message}"
        );
    }

    /// The system out of inotify instances (a limit of 128 by default, shared by every program
    /// that watches files) is said with that limit and its fix: it was said as a generic
    /// failure with the fix for the other limit, `max_user_watches`, which does not help.
    #[test]
    fn a_watcher_refused_for_lack_of_inotify_instances_names_that_limit() {
        let error = notify::Error::io(std::io::Error::from_raw_os_error(nix::libc::EMFILE));
        let message = refusal(&error, 0, 0, false);
        if cfg!(target_os = "linux") {
            assert!(
                message.contains("fs.inotify.max_user_instances is"),
                "{message}"
            );
            assert!(
                message.contains("sudo sysctl fs.inotify.max_user_instances=1024"),
                "{message}"
            );
            assert!(!message.contains("max_user_watches"), "{message}");
        }
        assert!(
            message.contains("scanning the sources every 1 s"),
            "{message}"
        );
    }

    /// A cap that is not a number is said, with the value, instead of silently ignored.
    #[test]
    fn a_watch_limit_that_is_not_a_number_is_said() {
        assert_eq!(parse_limit(None), Ok(None));
        assert_eq!(parse_limit(Some(" ")), Ok(None));
        assert_eq!(parse_limit(Some(" 12 ")), Ok(Some(12)));
        let message = parse_limit(Some("8k")).unwrap_err();
        assert!(
            message.contains("KNOTMETER_WATCH_LIMIT=\"8k\" is not a number"),
            "{message}"
        );
    }

    async fn next_change(rx: &mut mpsc::UnboundedReceiver<Notice>, want: &Path) -> Vec<Notice> {
        let mut seen = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while let Ok(Some(notice)) = tokio::time::timeout_at(deadline, rx.recv()).await {
            let done = matches!(&notice, Notice::Changed(paths) if paths.iter().any(|p| p == want));
            seen.push(notice);
            if done {
                return seen;
            }
        }
        panic!("{} was not reported; seen: {seen:?}", want.display());
    }

    /// Changes in source directories are reported, also in a directory created after the start;
    /// changes in ignored places are not.
    #[tokio::test(flavor = "multi_thread")]
    async fn changes_in_sources_are_reported_and_ignored_places_stay_quiet() {
        let (_dir, root) = tree();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _watch = spawn_with(&root, &root.join("target"), tx, None);
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::write(root.join("target/debug/build/x/gen.rs"), "").unwrap();
        std::fs::write(root.join("ignored/deep/x.rs"), "").unwrap();
        std::fs::write(root.join("benches/nested/b.rs"), "fn b() {}").unwrap();
        let seen = next_change(&mut rx, &root.join("benches/nested/b.rs")).await;
        let all: Vec<&PathBuf> = seen
            .iter()
            .flat_map(|n| match n {
                Notice::Changed(paths) => paths.iter().collect(),
                Notice::Polling(_) => Vec::new(),
            })
            .collect();
        assert!(
            all.iter().all(|p| p.starts_with(root.join("benches"))),
            "{all:?}"
        );
        // A directory made after the start is watched too.
        std::fs::create_dir_all(root.join("benches/later")).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::write(root.join("benches/later/c.rs"), "fn c() {}").unwrap();
        next_change(&mut rx, &root.join("benches/later/c.rs")).await;
    }

    /// A watched directory deleted and made again (a `git checkout` between branches) is
    /// watched again: it was once taken for still watched, and changes in it went unseen.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_directory_deleted_and_made_again_is_watched_again() {
        let (_dir, root) = tree();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _watch = spawn_with(&root, &root.join("target"), tx, None);
        std::fs::write(root.join("benches/nested/b.rs"), "fn b() {}").unwrap();
        next_change(&mut rx, &root.join("benches/nested/b.rs")).await;
        std::fs::remove_dir_all(root.join("benches/nested")).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::create_dir_all(root.join("benches/nested/deeper")).unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        std::fs::write(root.join("benches/nested/c.rs"), "fn c() {}").unwrap();
        next_change(&mut rx, &root.join("benches/nested/c.rs")).await;
        std::fs::write(root.join("benches/nested/deeper/d.rs"), "fn d() {}").unwrap();
        next_change(&mut rx, &root.join("benches/nested/deeper/d.rs")).await;
    }

    /// Past the cap (as past the system's limit), the watch says so once and polls: changes
    /// are still found.
    #[tokio::test(flavor = "multi_thread")]
    async fn beyond_the_watch_limit_changes_are_found_by_polling() {
        let (_dir, root) = tree();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let _watch = spawn_with(&root, &root.join("target"), tx, Some(2));
        let first = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        let Notice::Polling(message) = first else {
            panic!("expected the polling notice first, got {first:?}");
        };
        assert!(
            message.contains("KNOTMETER_WATCH_LIMIT allows 2 directories"),
            "{message}"
        );
        std::fs::write(root.join("benches/a.rs"), "fn changed() {}").unwrap();
        let seen = next_change(&mut rx, &root.join("benches/a.rs")).await;
        assert!(
            seen.iter().all(|n| !matches!(n, Notice::Polling(_))),
            "said once: {seen:?}"
        );
    }
}
