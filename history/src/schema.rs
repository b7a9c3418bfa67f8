//! The schema, its versions, and how a file is recognised and brought up to date.
//!
//! `PRAGMA application_id` is [`APPLICATION_ID`] in every history file; `PRAGMA user_version`
//! is the schema version. [`MIGRATIONS`] holds one SQL script per version: script `i` turns a
//! version-`i` file into a version-`i + 1` file, and a file is brought to [`SCHEMA_VERSION`]
//! by running the missing scripts in order, in one transaction together with the new
//! `user_version`, so a failed upgrade leaves the file as it was.
//!
//! # Version 1
//!
//! * `runs(id, timestamp, git_commit, machine_key, manifest)`: one row per run; `id` is the
//!   [`crate::RunId`], `manifest` the [`knotmeter_protocol::Manifest`] as JSON.
//! * `results(run_id, case_id, median_ns, low_ns, high_ns, verdict, result)`: one row per
//!   case of a run, primary key `(run_id, case_id)`; `result` is the
//!   [`knotmeter_protocol::BenchResult`] as JSON, the other columns are copies of its fields
//!   (`verdict` is `faster`, `slower`, `same` or NULL) for queries that need no JSON.
//!
//! # Version 2
//!
//! * `runs.baseline`: the name a run was saved under (`--save-baseline NAME`), with an index
//!   to find the latest run of a name.
//! * `results.machine_key`: copied from the run (and filled in for existing rows), so the
//!   question every comparison asks, "the latest result of this case on this machine before
//!   run N", is answered from one index on `(case_id, machine_key, run_id)`. It replaces
//!   version 1's index on `case_id` alone.
//!
//! # Version 3
//!
//! Runs are recorded as they go: the run row is written when the run starts, each result when
//! its case finishes, and the run is closed at the end.
//!
//! * `runs.status`: `running`, `complete`, `cancelled` or `interrupted` (existing runs are
//!   `complete`: earlier versions stored only complete runs). A `running` run whose process
//!   (`runs.pid`) is gone reads as `interrupted`.
//! * `runs.pid`, `runs.ended_at`: the process that records the run, and when it was closed.
//! * `runs.budget_ms`: the time budget per case, copied from the manifest (for listings).
//! * `results.partial`: the case was cut short by a cancel; never used as a baseline. Filled
//!   in from the stored JSON for existing rows.
//! * `results.stored_at`: when the result was stored (NULL for rows of earlier versions,
//!   which read as their run's start).
//!
//! # Version 4
//!
//! Histories that grow large and histories combined from several machines:
//!
//! * `runs.uid`: a run's identity wherever its rows are copied (unique): 32 random hex digits
//!   for a new run; for runs of earlier versions, `legacy-` and a digest of what identifies
//!   them (their id in the file, start time, process id, machine key, commit, baseline name,
//!   manifest), so two copies of one old file, migrated apart, still agree. `knotmeter history merge` matches
//!   runs by it, so merging twice adds nothing.
//! * The comparisons' index on results becomes `(case_id, machine_key, partial, run_id)`: the
//!   same lookups, and it covers "the latest complete result of every case" (what the editor
//!   loads at start-up), which read every stored result before.
//! * `results_partial_by_run`: the partial results of a run (a partial index: they are rare),
//!   so listing runs with their partial counts no longer reads their results.
//!
//! # Version 5
//!
//! Comparisons of two builds (`knotmeter compare`), kept apart from runs so that a
//! before/after comparison never takes the other build's result for this one's predecessor:
//!
//! * `comparisons(id, timestamp, base_label, base_commit, head_label, head_commit, head_dirty,
//!   machine_key, cancelled, report)`: one row per comparison; `report` is the
//!   [`knotmeter_protocol::CompareReport`] as JSON without its cases.
//! * `compared_cases(comparison_id, case_id, status, ratio, low, high, verdict, entry)`: one
//!   row per case of a comparison; `entry` is the [`knotmeter_protocol::ComparedCase`] as
//!   JSON, each side's raw samples in their compact form.
//!
//! # Version 6
//!
//! Comparisons travel between files like runs (`knotmeter history merge`):
//!
//! * `comparisons.uid`: a comparison's identity wherever it is copied (unique): 32 random hex
//!   digits for a new comparison; for comparisons of version 5, `legacy-` and a digest of what
//!   identifies them (their id in the file, time, both labels and commits, whether the head
//!   had uncommitted changes, machine key, report), so two copies of one old file, migrated
//!   apart, still agree.
//! * `comparisons_by_pair`: the comparisons of each pair of sides on each machine key, newest
//!   last, for the retention of `knotmeter history prune`.
//!
//! # Version 7
//!
//! * `runs.probe`: the machine's probe of the run (a [`knotmeter_protocol::MachineProbe`] as
//!   JSON: how fast a fixed chain ran in the run's rounds), written when the run is closed;
//!   NULL for runs of earlier versions, runs that did not finish, and runs that measured nothing.
//!   A before/after comparison between two runs that both have one is taken relative to it
//!   (docs/measurement.md, §7).
//!
//! # Version 8
//!
//! * `profiles(id, timestamp, case_id, tool, profile, uid)`: one row per profile of a case
//!   (`knotmeter profile`, the editor's "Profile"); `tool` is `callgrind` or `perf`, `profile`
//!   the [`knotmeter_protocol::Profile`] as JSON, `uid` its identity in every file (unique).
//!   The newest five of each case and tool are kept (`crate::KEPT_PROFILES`), found through
//!   `profiles_by_case` on `(case_id, tool, id)`.
//!
//! # Recognising a file
//!
//! Before SQLite opens a file, the `recognise` module decides from its bytes whether it is a
//! history, an empty database, or another program's file. Once it is open, [`inspect`] checks
//! the same facts through SQLite: a file whose `application_id` is ours is a history; if its
//! version is newer than this code's, it is left alone. A file with `application_id` 0 and no
//! tables is empty and becomes a history. Anything else — another `application_id`, or tables
//! in a file without ours — belongs to another program.

use rusqlite::Connection;

/// The `PRAGMA application_id` of every knotmeter history file: `KNOT` in ASCII.
pub const APPLICATION_ID: i32 = i32::from_be_bytes(*b"KNOT");

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// `MIGRATIONS[i]` upgrades a version-`i` file to version `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: runs and their results.
    "CREATE TABLE runs (
        id          INTEGER PRIMARY KEY,
        timestamp   INTEGER NOT NULL,
        git_commit  TEXT,
        machine_key TEXT NOT NULL,
        manifest    TEXT NOT NULL
    );
    CREATE TABLE results (
        run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id   TEXT NOT NULL,
        median_ns REAL NOT NULL,
        low_ns    REAL NOT NULL,
        high_ns   REAL NOT NULL,
        verdict   TEXT,
        result    TEXT NOT NULL,
        PRIMARY KEY (run_id, case_id)
    );
    CREATE INDEX results_by_case ON results(case_id);",
    // 1 -> 2: named baselines, and the machine key beside each result for comparisons.
    "ALTER TABLE runs ADD COLUMN baseline TEXT;
    CREATE INDEX runs_by_baseline ON runs(baseline, id) WHERE baseline IS NOT NULL;
    ALTER TABLE results ADD COLUMN machine_key TEXT NOT NULL DEFAULT '';
    UPDATE results SET machine_key = (SELECT machine_key FROM runs WHERE runs.id = results.run_id);
    DROP INDEX results_by_case;
    CREATE INDEX results_by_case_machine_run ON results(case_id, machine_key, run_id);",
    // 2 -> 3: runs recorded as they go, partial results marked, when each result was stored.
    "ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';
    ALTER TABLE runs ADD COLUMN pid INTEGER;
    ALTER TABLE runs ADD COLUMN ended_at INTEGER;
    ALTER TABLE runs ADD COLUMN budget_ms INTEGER NOT NULL DEFAULT 0;
    UPDATE runs SET budget_ms = coalesce(json_extract(manifest, '$.budget_ms'), 0);
    ALTER TABLE results ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN stored_at INTEGER;
    UPDATE results SET partial = 1 WHERE json_extract(result, '$.partial') = 1;",
    // 3 -> 4: a run's identity across files (uids of earlier runs are filled in by
    // `fill_legacy_uids`), and indexes for large histories.
    "ALTER TABLE runs ADD COLUMN uid TEXT;
    CREATE UNIQUE INDEX runs_by_uid ON runs(uid);
    DROP INDEX results_by_case_machine_run;
    CREATE INDEX results_by_case_machine_partial_run
        ON results(case_id, machine_key, partial, run_id);
    CREATE INDEX results_partial_by_run ON results(run_id) WHERE partial = 1;",
    // 4 -> 5: comparisons of two builds (`knotmeter compare`).
    "CREATE TABLE comparisons (
        id          INTEGER PRIMARY KEY,
        timestamp   INTEGER NOT NULL,
        base_label  TEXT NOT NULL,
        base_commit TEXT,
        head_label  TEXT NOT NULL,
        head_commit TEXT,
        head_dirty  INTEGER NOT NULL DEFAULT 0,
        machine_key TEXT NOT NULL,
        cancelled   INTEGER NOT NULL DEFAULT 0,
        report      TEXT NOT NULL
    );
    CREATE TABLE compared_cases (
        comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
        case_id       TEXT NOT NULL,
        status        TEXT NOT NULL,
        ratio         REAL,
        low           REAL,
        high          REAL,
        verdict       TEXT,
        entry         TEXT NOT NULL,
        PRIMARY KEY (comparison_id, case_id)
    );
    CREATE INDEX compared_by_case ON compared_cases(case_id, comparison_id);",
    // 5 -> 6: a comparison's identity across files (uids of earlier comparisons are filled in
    // by `fill_legacy_comparison_uids`), and the index pruning walks.
    "ALTER TABLE comparisons ADD COLUMN uid TEXT;
    CREATE UNIQUE INDEX comparisons_by_uid ON comparisons(uid);
    CREATE INDEX comparisons_by_pair
        ON comparisons(machine_key, base_label, head_label, id);",
    // 6 -> 7: the machine's probe of each run.
    "ALTER TABLE runs ADD COLUMN probe TEXT;",
    // 7 -> 8: profiles of a case.
    "CREATE TABLE profiles (
        id        INTEGER PRIMARY KEY,
        timestamp INTEGER NOT NULL,
        case_id   TEXT NOT NULL,
        tool      TEXT NOT NULL,
        profile   TEXT NOT NULL,
        uid       TEXT NOT NULL UNIQUE
    );
    CREATE INDEX profiles_by_case ON profiles(case_id, tool, id);",
];

/// The tables every version of the schema has.
const TABLES: &[&str] = &["results", "runs"];

/// What a database file turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// No tables and no application id: a new or empty file.
    Empty,
    /// A knotmeter history of the given schema version, with its tables present.
    Ours(i64),
    /// Ours by application id, but tables are missing.
    Damaged(String),
    /// Another program's database.
    Foreign(String),
}

/// Looks at the file's application id, schema version and tables without writing anything.
pub(crate) fn inspect(conn: &Connection) -> rusqlite::Result<Found> {
    let application_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut statement = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         ORDER BY name",
    )?;
    let tables = statement
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;

    if application_id != APPLICATION_ID {
        if application_id != 0 {
            return Ok(Found::Foreign(format!(
                "its SQLite application_id is {application_id:#010x}, not knotmeter's \
                 {APPLICATION_ID:#010x}"
            )));
        }
        if !tables.is_empty() {
            return Ok(Found::Foreign(format!(
                "it is an SQLite database with the tables {}",
                tables.join(", ")
            )));
        }
        return Ok(Found::Empty);
    }
    if version == 0 && tables.is_empty() {
        return Ok(Found::Empty);
    }
    if version > SCHEMA_VERSION {
        return Ok(Found::Ours(version));
    }
    let missing: Vec<&str> = TABLES
        .iter()
        .copied()
        .filter(|t| !tables.iter().any(|have| have == t))
        .collect();
    if version < 1 {
        return Ok(Found::Damaged(format!(
            "it has tables ({}) but no schema version",
            tables.join(", ")
        )));
    }
    if !missing.is_empty() {
        return Ok(Found::Damaged(format!(
            "schema version {version} lacks the table `{}`",
            missing.join("`, `")
        )));
    }
    Ok(Found::Ours(version))
}

/// Runs the migrations from `from` to [`SCHEMA_VERSION`] and stamps the file as ours. The
/// caller holds a write transaction.
pub(crate) fn migrate(conn: &Connection, from: i64) -> rusqlite::Result<()> {
    let from = usize::try_from(from).unwrap_or(0);
    for script in MIGRATIONS.iter().skip(from) {
        conn.execute_batch(script)?;
    }
    if from < 4 {
        fill_legacy_uids(conn)?;
    }
    if from < 6 {
        fill_legacy_comparison_uids(conn)?;
    }
    // PRAGMA takes no parameters; both values are constants of this crate.
    conn.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))
}

/// Gives every comparison without a uid (recorded before version 6) its legacy uid.
fn fill_legacy_comparison_uids(conn: &Connection) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT id, timestamp, base_label, base_commit, head_label, head_commit, head_dirty, \
         machine_key, report FROM comparisons WHERE uid IS NULL",
    )?;
    let rows = select
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                crate::uid::legacy_uid(&[
                    "comparison",
                    &r.get::<_, i64>(0)?.to_string(),
                    &r.get::<_, i64>(1)?.to_string(),
                    &r.get::<_, String>(2)?,
                    &r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                    &r.get::<_, String>(4)?,
                    &r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    &r.get::<_, bool>(6)?.to_string(),
                    &r.get::<_, String>(7)?,
                    &r.get::<_, String>(8)?,
                ]),
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut update = conn.prepare("UPDATE comparisons SET uid = ?2 WHERE id = ?1")?;
    for (id, uid) in rows {
        update.execute(rusqlite::params![id, uid])?;
    }
    Ok(())
}

/// Gives every run without a uid (recorded before version 4) its legacy uid.
fn fill_legacy_uids(conn: &Connection) -> rusqlite::Result<()> {
    let mut select = conn.prepare(
        "SELECT id, timestamp, pid, machine_key, git_commit, baseline, manifest FROM runs \
         WHERE uid IS NULL",
    )?;
    let rows = select
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                crate::uid::legacy_uid(&[
                    &r.get::<_, i64>(0)?.to_string(),
                    &r.get::<_, i64>(1)?.to_string(),
                    &r.get::<_, Option<i64>>(2)?
                        .map_or(String::new(), |p| p.to_string()),
                    &r.get::<_, String>(3)?,
                    &r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                    &r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    &r.get::<_, String>(6)?,
                ]),
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut update = conn.prepare("UPDATE runs SET uid = ?2 WHERE id = ?1")?;
    for (id, uid) in rows {
        update.execute(rusqlite::params![id, uid])?;
    }
    Ok(())
}
