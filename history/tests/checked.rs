//! Opening for writing checks the file only when it changed since a writer last left it good
//! (the `-checked` stamp), and never writes to a damaged file either way.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{manifest, result, temp_history};
use knotmeter_history::{machine_key, History, HistoryError};

fn stamp_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-checked");
    PathBuf::from(name)
}

/// A history of a few hundred pages, closed cleanly.
fn history_with_runs(path: &Path) {
    let mut history = History::open(path).unwrap();
    for i in 0..40 {
        let results: Vec<_> = (0..5)
            .map(|c| result(&format!("q::case{c}"), 10.0 + f64::from(i)))
            .collect();
        history.record_run(&manifest(), &results, None).unwrap();
    }
}

/// Scribbles over the b-tree header of a page in the middle, keeping the file's size.
fn damage_a_page(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    let page = 4096;
    let at = (bytes.len() / page / 2) * page;
    for (i, byte) in bytes[at..at + 64].iter_mut().enumerate() {
        *byte = (i as u8).wrapping_mul(151).wrapping_add(7);
    }
    fs::write(path, &bytes).unwrap();
}

#[test]
fn a_clean_close_stamps_the_file_and_any_change_since_is_checked() {
    let (_dir, path) = temp_history();
    history_with_runs(&path);
    let stamp = fs::read_to_string(stamp_of(&path)).expect("a clean close stamps the file");
    assert!(
        stamp.starts_with("knotmeter-history-checked 1\n"),
        "{stamp}"
    );

    // Opening again without a change keeps it stamped; so does a reader.
    drop(History::open(&path).unwrap());
    drop(History::open_read_only(&path).unwrap());
    assert!(stamp_of(&path).exists());

    // Damage written after the stamp changes the file's status-change time: it is checked,
    // found damaged, not written, and its stamp goes.
    damage_a_page(&path);
    let before = fs::read(&path).unwrap();
    match History::open(&path) {
        Err(HistoryError::Corrupt { detail, .. }) => {
            assert!(detail.contains("quick_check"), "{detail}")
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), before, "nothing written");
    assert!(
        !stamp_of(&path).exists(),
        "the stamp of a damaged file is removed"
    );
}

/// The positive control: a stamp that matches is what skips the check. Here it is forged to
/// match a damaged file, which the check would refuse; the open then gets past it. (This is
/// the documented limit: damage that changes no metadata is not looked for at open.)
#[test]
fn a_stamp_that_matches_is_what_skips_the_check() {
    let (_dir, path) = temp_history();
    history_with_runs(&path);
    damage_a_page(&path);
    assert!(matches!(
        History::open(&path),
        Err(HistoryError::Corrupt { .. })
    ));
    // Forge the stamp of the damaged file as it is now, from a clean file's stamp format.
    let (_other_dir, other) = temp_history();
    history_with_runs(&other);
    let forged = stamp_for(&path);
    assert_eq!(
        fs::read_to_string(stamp_of(&other)).unwrap().lines().next(),
        forged.lines().next()
    );
    fs::write(stamp_of(&path), forged).unwrap();
    assert!(
        History::open(&path).is_ok(),
        "a matching stamp skips quick_check"
    );
}

#[test]
fn a_wal_left_behind_means_a_check_even_with_a_matching_stamp() {
    let (_dir, path) = temp_history();
    history_with_runs(&path);
    damage_a_page(&path);
    fs::write(stamp_of(&path), stamp_for(&path)).unwrap();
    // What a writer killed before it closed leaves: a WAL with frames in it.
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    fs::write(PathBuf::from(wal), vec![0u8; 4096]).unwrap();
    assert!(matches!(
        History::open(&path),
        Err(HistoryError::Corrupt { .. })
    ));
}

#[test]
fn a_history_this_process_found_damaged_is_not_stamped() {
    let (_dir, path) = temp_history();
    history_with_runs(&path);
    fs::remove_file(stamp_of(&path)).unwrap();
    // Damage SQLite cannot see: a stored result that does not read back.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE results SET result = '{' WHERE case_id = 'q::case1'",
            [],
        )
        .unwrap();
    let history = History::open(&path).unwrap();
    assert!(matches!(
        history.previous("q::case1", &machine_key(&manifest()), None),
        Err(HistoryError::Corrupt { .. })
    ));
    drop(history);
    assert!(!stamp_of(&path).exists(), "found damaged, so not stamped");
}

/// The stamp a clean close would write for `path` as it is now.
fn stamp_for(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(path).unwrap();
    format!(
        "knotmeter-history-checked 1\ndev {}\nino {}\nsize {}\nmtime {}.{:09}\nctime {}.{:09}\n",
        m.dev(),
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    )
}
