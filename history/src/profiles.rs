//! Profiles of one case (`knotmeter profile`, the editor's "Profile"): each stored whole as
//! JSON beside the case's results, the newest [`KEPT_PROFILES`] of each case and profiler
//! kept, read back newest first, so an editor shows the last profile after a restart.
//!
//! A profile is not a run: no before/after comparison ever reads one. Each has a uid like runs
//! and comparisons; `knotmeter history merge` does not copy profiles yet.

use knotmeter_protocol::Profile;
use rusqlite::params;

use crate::uid::new_uid;
use crate::write::{now, write};
use crate::{History, HistoryError};

/// How many profiles of each case and profiler are kept: recording one more deletes the oldest.
pub const KEPT_PROFILES: usize = 5;

/// A profile as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredProfile {
    /// Its row id in this file.
    pub id: i64,
    /// When it was recorded, in seconds since the Unix epoch.
    pub timestamp: i64,
    /// The profile.
    pub profile: Profile,
}

impl History {
    /// Records `profile` and deletes the case's profiles by the same profiler beyond the newest
    /// [`KEPT_PROFILES`], in one transaction; returns it as stored (its id and time). Rejected
    /// (nothing written) when a value cannot be read back from JSON.
    pub fn record_profile(&mut self, profile: &Profile) -> Result<StoredProfile, HistoryError> {
        let json = self.checked_json(profile, &format!("the profile of `{}`", profile.id))?;
        let tool = tool_name(profile);
        let timestamp = now();
        let tx = write(&mut self.conn, &self.path)?;
        let sqlite = |e| HistoryError::sqlite(&self.path, e);
        tx.execute(
            "INSERT INTO profiles (timestamp, case_id, tool, profile, uid) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![timestamp, profile.id, tool, json, new_uid()],
        )
        .map_err(sqlite)?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "DELETE FROM profiles WHERE case_id = ?1 AND tool = ?2 AND id NOT IN \
             (SELECT id FROM profiles WHERE case_id = ?1 AND tool = ?2 ORDER BY id DESC LIMIT ?3)",
            params![profile.id, tool, KEPT_PROFILES as i64],
        )
        .map_err(sqlite)?;
        tx.commit().map_err(sqlite)?;
        Ok(StoredProfile {
            id,
            timestamp,
            profile: profile.clone(),
        })
    }

    /// The newest `limit` profiles of case `case_id`, newest first, whichever profiler made them.
    pub fn profiles(
        &self,
        case_id: &str,
        limit: usize,
    ) -> Result<Vec<StoredProfile>, HistoryError> {
        self.read_profiles(
            "SELECT id, timestamp, profile FROM profiles WHERE case_id = ?1 \
             ORDER BY id DESC LIMIT ?2",
            params![case_id, i64::try_from(limit).unwrap_or(i64::MAX)],
        )
    }

    /// The newest profile of every case that has one, oldest case first (what an editor shows
    /// when it starts).
    pub fn latest_profiles(&self) -> Result<Vec<StoredProfile>, HistoryError> {
        self.read_profiles(
            "SELECT id, timestamp, profile FROM profiles WHERE id IN \
             (SELECT max(id) FROM profiles GROUP BY case_id) ORDER BY id",
            params![],
        )
    }

    fn read_profiles(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<StoredProfile>, HistoryError> {
        let mut statement = self.conn.prepare(sql).map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map(params, |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(|e| self.sqlite(e))?;
        rows.into_iter()
            .map(|(id, timestamp, json)| {
                Ok(StoredProfile {
                    id,
                    timestamp,
                    profile: self.parse(&json, &format!("profile {id}"))?,
                })
            })
            .collect()
    }
}

/// The profiler's name as the `tool` column holds it (`callgrind`, `perf`).
fn tool_name(profile: &Profile) -> &'static str {
    match profile.tool {
        knotmeter_protocol::ProfileTool::Callgrind => "callgrind",
        knotmeter_protocol::ProfileTool::Perf => "perf",
    }
}
