//! Files that are not a usable history: errors that say what to do, and no writes — not to
//! the file, not next to it, and no renaming.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{files_in, manifest, result, temp_history};
use knotmeter_history::{History, HistoryError, SCHEMA_VERSION};
use rusqlite::Connection;

/// `n` pseudo-random bytes (xorshift), the same every run.
fn random_bytes(n: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// Writes `bytes` as the history file, creating its directory.
fn write_history(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn companion(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// Every file of `dir` with its length and a hash of its bytes.
fn snapshot(dir: &Path) -> Vec<(String, usize, u64)> {
    use std::hash::{Hash, Hasher};
    files_in(dir)
        .into_iter()
        .map(|name| {
            let bytes = fs::read(dir.join(&name)).unwrap();
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut hasher);
            (name, bytes.len(), hasher.finish())
        })
        .collect()
}

/// Opens `path` every way a knotmeter process does, and returns the errors.
fn open_every_way(path: &Path) -> [HistoryError; 2] {
    [
        History::open(path).unwrap_err(),
        History::open_read_only(path).unwrap_err(),
    ]
}

#[test]
fn a_file_of_random_bytes_is_left_untouched() {
    let (_dir, path) = temp_history();
    let bytes = random_bytes(8192);
    write_history(&path, &bytes);
    let before = snapshot(path.parent().unwrap());

    for error in open_every_way(&path) {
        match &error {
            HistoryError::Foreign { path: p, detail } => {
                assert_eq!(p, &path);
                assert!(detail.contains("not an SQLite database"), "{detail}");
            }
            other => panic!("expected Foreign, got {other:?}"),
        }
        let message = error.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("left untouched"), "{message}");
        assert!(message.contains("KNOTMETER_HISTORY"), "{message}");
        assert!(message.contains(".not-knotmeter"), "{message}");
    }
    assert_eq!(
        snapshot(path.parent().unwrap()),
        before,
        "nothing written, created or moved"
    );
}

/// Issue 21 §7: a history cut short at 50 bytes (the start of SQLite's header, `SQLite f…`)
/// was described by its first bytes, `53 51 4c 69 74 65 20 66`, as if it were no database.
#[test]
fn a_history_cut_short_at_50_bytes_was_described_by_its_hex_bytes() {
    let (_dir, path) = temp_history();
    {
        let mut history = History::open(&path).unwrap();
        history
            .record_run(&manifest(), &[result("q::x", 1.0)], None)
            .unwrap();
    }
    let whole = fs::read(&path).unwrap();
    for len in [50, 8] {
        write_history(&path, &whole[..len]);
        let before = snapshot(path.parent().unwrap());
        for error in open_every_way(&path) {
            let HistoryError::Foreign { detail, .. } = &error else {
                panic!("expected Foreign, got {error:?}");
            };
            assert!(
                detail.contains(&format!("an SQLite database cut short at {len} bytes")),
                "{detail}"
            );
            assert!(!detail.contains("53 51"), "{detail}");
            assert!(error.to_string().contains("left untouched"), "{error}");
        }
        assert_eq!(snapshot(path.parent().unwrap()), before, "nothing written");
    }
}

/// Issue 10 §3: another program's database was renamed away and replaced.
#[test]
fn another_programs_database_is_never_opened_written_or_moved() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Another program's database in WAL mode, with its WAL and shared memory beside it
    // (the program is running: its connection is open).
    let other = Connection::open(&path).unwrap();
    other
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO users (name) VALUES ('ada'), ('grace');",
        )
        .unwrap();
    let before = snapshot(path.parent().unwrap());
    assert!(before.iter().any(|(name, _, _)| name.ends_with("-wal")));

    for error in open_every_way(&path) {
        match &error {
            HistoryError::Foreign { path: p, detail } => {
                assert_eq!(p, &path);
                assert!(detail.contains("users"), "{detail}");
            }
            other => panic!("expected Foreign, got {other:?}"),
        }
        assert!(error.to_string().contains("left untouched"), "{error}");
    }
    assert_eq!(snapshot(path.parent().unwrap()), before);
    // The other program goes on working.
    other
        .execute("INSERT INTO users (name) VALUES ('barbara')", [])
        .unwrap();
    drop(other);

    // Closed and checkpointed (no companion files any more): still never touched.
    let before = snapshot(path.parent().unwrap());
    assert_eq!(files_in(path.parent().unwrap()), ["history.db"]);
    let _ = open_every_way(&path);
    assert_eq!(snapshot(path.parent().unwrap()), before);
}

#[test]
fn a_database_whose_tables_are_only_in_its_wal_is_foreign() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let other = Connection::open(&path).unwrap();
    other
        .execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');",
        )
        .unwrap();
    let before = snapshot(path.parent().unwrap());
    for error in open_every_way(&path) {
        assert!(
            matches!(&error, HistoryError::Foreign { detail, .. } if detail.contains("notes")),
            "{error:?}"
        );
    }
    assert_eq!(snapshot(path.parent().unwrap()), before);
    drop(other);
}

#[test]
fn another_application_id_is_foreign_even_without_tables() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA application_id = 305419896")
        .unwrap();
    let before = snapshot(path.parent().unwrap());
    for error in open_every_way(&path) {
        match error {
            HistoryError::Foreign { detail, .. } => {
                assert!(detail.contains("0x12345678"), "{detail}")
            }
            other => panic!("expected Foreign, got {other:?}"),
        }
    }
    assert_eq!(snapshot(path.parent().unwrap()), before);
}

#[test]
fn an_empty_database_without_application_id_becomes_a_history() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 0; VACUUM;")
        .unwrap();
    assert!(fs::metadata(&path).unwrap().len() > 0);
    let mut history = History::open(&path).unwrap();
    history
        .record_run(&manifest(), &[result("q::x", 1.0)], None)
        .unwrap();
}

#[test]
fn a_history_with_missing_tables_is_damaged_and_not_written() {
    let (_dir, path) = temp_history();
    History::open(&path).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE results; PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let before = fs::read(&path).unwrap();
    match History::open(&path) {
        Err(HistoryError::Corrupt { detail, .. }) => {
            assert!(detail.contains("`results`"), "{detail}")
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), before);
}

/// Issue 10 §3: a run was written into a file with damaged pages.
#[test]
fn damaged_pages_are_found_before_writing_and_nothing_is_written() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    for i in 0..40 {
        let results: Vec<_> = (0..5)
            .map(|c| common::result_with_samples(&format!("q::case{c}"), 10.0 + f64::from(i), 101))
            .collect();
        history.record_run(&manifest(), &results, None).unwrap();
    }
    drop(history);
    let mut bytes = fs::read(&path).unwrap();
    let page = 4096;
    let pages = bytes.len() / page;
    assert!(pages > 10, "{pages} pages");
    // Scribble over the b-tree header and cell pointers of a page in the middle.
    let at = (pages / 2) * page;
    bytes[at..at + 64].copy_from_slice(&random_bytes(64));
    fs::write(&path, &bytes).unwrap();

    let error = History::open(&path).unwrap_err();
    match &error {
        HistoryError::Corrupt { detail, .. } => assert!(detail.contains("quick_check"), "{detail}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains("nothing was written"), "{message}");
    assert!(
        message.contains(&format!(
            "mv '{}' '{}.damaged'",
            path.display(),
            path.display()
        )),
        "{message}"
    );
    assert!(fs::read(&path).unwrap() == bytes, "not a byte written");
    assert_eq!(files_in(path.parent().unwrap()), ["history.db"]);

    // What can still be read is read.
    let reader = History::open_read_only(&path).expect("a damaged history opens for reading");
    let readable = (0..5)
        .filter(|c| reader.points(&format!("q::case{c}"), 100).is_ok())
        .count();
    assert!(readable > 0, "some cases are still readable");
}

#[test]
fn a_newer_schema_is_too_new_and_left_untouched() {
    let (_dir, path) = temp_history();
    let mut history = History::open(&path).unwrap();
    history
        .record_run(&manifest(), &[result("q::x", 1.0)], None)
        .unwrap();
    drop(history);
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let before = snapshot(path.parent().unwrap());

    let errors = [
        History::open(&path).unwrap_err(),
        History::open_read_only(&path).unwrap_err(),
    ];
    for error in errors {
        match &error {
            HistoryError::TooNew {
                path: p,
                found,
                supported,
            } => {
                assert_eq!((p, *found, *supported), (&path, 99, SCHEMA_VERSION));
            }
            other => panic!("expected TooNew, got {other:?}"),
        }
        assert!(error.to_string().contains("upgrade knotmeter"), "{error}");
    }
    assert_eq!(snapshot(path.parent().unwrap()), before);
}

#[test]
fn a_missing_file_is_missing_for_readers_and_created_for_writers() {
    let (dir, path) = temp_history();
    match History::open_read_only(&path) {
        Err(HistoryError::Missing { path: p }) => assert_eq!(p, path),
        other => panic!("expected Missing, got {other:?}"),
    }
    assert!(!path.parent().unwrap().exists(), "a reader creates nothing");

    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, b"").unwrap();
    assert!(matches!(
        History::open_read_only(&path),
        Err(HistoryError::Missing { .. })
    ));
    // An empty file becomes a history.
    History::open(&path).unwrap();
    assert!(History::open_read_only(&path).is_ok());
    drop(dir);
}

#[test]
fn errors_can_cross_threads() {
    fn assert_send_sync<T: Send + Sync + std::error::Error + 'static>() {}
    assert_send_sync::<HistoryError>();
}

#[test]
fn companions_of_a_damaged_file_are_named_in_the_commands() {
    let (_dir, path) = temp_history();
    write_history(&path, b"SQLite format 3\0");
    fs::write(companion(&path, "-wal"), b"x").unwrap();
    let error = HistoryError::Corrupt {
        path: path.clone(),
        detail: "test".into(),
    };
    let message = error.to_string();
    assert!(
        message.contains(&format!(
            "mv '{}-wal' '{}.damaged-wal'",
            path.display(),
            path.display()
        )),
        "{message}"
    );
    assert!(
        !message.contains("-shm"),
        "only files that exist: {message}"
    );
}

/// Set in a child: the history the child opens for writing, printing the error.
const CHILD: &str = "KNOTMETER_HISTORY_OPEN_CHILD";

/// Issue 10 §3: leftover read-only `-wal`/`-shm` files are named in the message. The history
/// is opened by a child process as another user (when the tests run as root, who may write
/// anything) or with the files made read-only.
#[test]
fn read_only_companion_files_left_by_another_user_are_named() {
    if let Some(path) = std::env::var_os(CHILD) {
        match History::open(Path::new(&path)) {
            Ok(_) => println!("opened"),
            Err(e) => println!("{e}"),
        }
        return;
    }
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    let (dir, path) = temp_history();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    History::open(&path).unwrap();
    // Another user's process has the history open: its `-wal` and `-shm` exist.
    let holder = Connection::open(&path).unwrap();
    holder
        .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
        .unwrap();
    let (wal, shm) = (companion(&path, "-wal"), companion(&path, "-shm"));
    assert!(wal.exists() && shm.exists());
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(common::only_test(
            module_path!(),
            "read_only_companion_files_left_by_another_user_are_named",
        ))
        .env(CHILD, &path);
    if fs::metadata(&path).unwrap().uid() == 0 {
        child.uid(65_534).gid(65_534);
    } else {
        for file in [&wal, &shm] {
            fs::set_permissions(file, fs::Permissions::from_mode(0o444)).unwrap();
        }
    }
    let out = child.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cannot be written"), "{text}");
    assert!(
        text.contains(&shm.display().to_string()) || text.contains(&wal.display().to_string()),
        "the files are named: {text}"
    );
    drop(holder);
}
