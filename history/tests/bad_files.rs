//! Files that are not a usable history: errors, no writes, and moving them aside.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{manifest, result, temp_history};
use knotmeter_history::{History, HistoryError, MovedAside, SCHEMA_VERSION};
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

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Writes `bytes` as the history file, creating its directory.
fn write_history(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Checks that the moved-aside file is where `moved` says, holds `bytes`, and that a new,
/// working history took its place.
fn check_moved(path: &Path, history: &mut History, moved: &MovedAside, bytes: &[u8]) -> PathBuf {
    assert_eq!(moved.from, path);
    let name = moved.to.file_name().unwrap().to_str().unwrap();
    let seconds = name.strip_prefix("history.db.corrupt-").expect(name);
    assert!(seconds.parse::<u64>().unwrap() > 1_700_000_000, "{name}");
    assert_eq!(moved.to.parent(), path.parent());
    assert_eq!(
        fs::read(&moved.to).unwrap(),
        bytes,
        "the bad file is kept as it was"
    );
    let message = moved.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(
        message.contains(&moved.to.display().to_string()),
        "{message}"
    );

    history
        .record_run(&manifest(), &[result("q::x", 1.0)], None)
        .expect("the new history works");
    assert_eq!(history.points("q::x", 10).unwrap().len(), 1);
    moved.to.clone()
}

#[test]
fn a_file_of_random_bytes_is_corrupt_and_is_moved_aside() {
    let (_dir, path) = temp_history();
    let bytes = random_bytes(8192);
    write_history(&path, &bytes);

    for error in [
        History::open(&path).unwrap_err(),
        History::open_read_only(&path).unwrap_err(),
    ] {
        match &error {
            HistoryError::Corrupt { path: p, detail } => {
                assert_eq!(p, &path);
                assert!(detail.contains("not an SQLite database"), "{detail}");
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
        let message = error.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("move or delete it"), "{message}");
    }
    assert_eq!(fs::read(&path).unwrap(), bytes, "open wrote nothing");
    assert_eq!(files_in(path.parent().unwrap()), ["history.db"]);

    let (mut history, moved) = History::open_or_move_aside(&path).unwrap();
    let moved = moved.expect("the corrupt file was moved aside");
    assert!(matches!(moved.reason, HistoryError::Corrupt { .. }));
    let to = check_moved(&path, &mut history, &moved, &bytes);
    drop(history);

    // The next open finds the new history and moves nothing.
    let (_history, moved_again) = History::open_or_move_aside(&path).unwrap();
    assert!(moved_again.is_none());
    assert!(files_in(path.parent().unwrap())
        .contains(&to.file_name().unwrap().to_string_lossy().into_owned()));
}

#[test]
fn a_damaged_sqlite_file_is_corrupt() {
    let (_dir, path) = temp_history();
    // The right header, then garbage.
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(random_bytes(4096 - 16));
    write_history(&path, &bytes);

    let error = History::open(&path).unwrap_err();
    assert!(
        matches!(&error, HistoryError::Corrupt { path: p, .. } if *p == path),
        "{error:?}"
    );
    assert_eq!(fs::read(&path).unwrap(), bytes);

    let (mut history, moved) = History::open_or_move_aside(&path).unwrap();
    check_moved(&path, &mut history, &moved.unwrap(), &bytes);
}

#[test]
fn a_history_with_missing_tables_is_corrupt() {
    let (_dir, path) = temp_history();
    History::open(&path).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE results")
        .unwrap();
    match History::open(&path) {
        Err(HistoryError::Corrupt { detail, .. }) => {
            assert!(detail.contains("`results`"), "{detail}")
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn another_programs_database_is_foreign_and_left_untouched() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO users (name) VALUES ('ada'), ('grace');",
        )
        .unwrap();
    // A stray WAL companion must travel with its database.
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    fs::write(&wal, b"not really a wal").unwrap();
    let bytes = fs::read(&path).unwrap();

    for error in [
        History::open(&path).unwrap_err(),
        History::open_read_only(&path).unwrap_err(),
    ] {
        match &error {
            HistoryError::Foreign { path: p, detail } => {
                assert_eq!(p, &path);
                assert!(detail.contains("users"), "{detail}");
            }
            other => panic!("expected Foreign, got {other:?}"),
        }
        assert!(error.to_string().contains("left untouched"), "{error}");
    }
    assert_eq!(fs::read(&path).unwrap(), bytes, "open wrote nothing");

    let (mut history, moved) = History::open_or_move_aside(&path).unwrap();
    let moved = moved.unwrap();
    assert!(matches!(moved.reason, HistoryError::Foreign { .. }));
    let to = check_moved(&path, &mut history, &moved, &bytes);
    assert_eq!(
        fs::read(format!("{}-wal", to.display())).unwrap(),
        b"not really a wal"
    );
    let users: i64 = Connection::open(&to)
        .unwrap()
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 2, "the moved database still opens with its data");
}

#[test]
fn another_application_id_is_foreign_even_without_tables() {
    let (_dir, path) = temp_history();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA application_id = 305419896")
        .unwrap();
    match History::open(&path) {
        Err(HistoryError::Foreign { detail, .. }) => {
            assert!(detail.contains("0x12345678"), "{detail}")
        }
        other => panic!("expected Foreign, got {other:?}"),
    }
}

#[test]
fn a_newer_schema_is_too_new_and_never_moved() {
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
    let bytes = fs::read(&path).unwrap();

    let errors = [
        History::open(&path).unwrap_err(),
        History::open_read_only(&path).unwrap_err(),
        History::open_or_move_aside(&path).unwrap_err(),
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
    assert_eq!(fs::read(&path).unwrap(), bytes);
    // Readers may leave SQLite's WAL companions behind, but nothing was moved.
    let files = files_in(path.parent().unwrap());
    assert!(!files.iter().any(|f| f.contains("corrupt")), "{files:?}");
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
    let (_history, moved) = History::open_or_move_aside(&path).unwrap();
    assert!(moved.is_none());
    drop(dir);
}

#[test]
fn errors_can_cross_threads() {
    fn assert_send_sync<T: Send + Sync + std::error::Error + 'static>() {}
    assert_send_sync::<HistoryError>();
}
