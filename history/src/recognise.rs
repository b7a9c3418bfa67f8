//! Telling whose file sits at the history path from its bytes alone, before SQLite opens it.
//!
//! SQLite writes next to any database it opens: a read-only open of a WAL database creates
//! its `-shm` file, a read-write open rolls back a hot journal, and the last connection to
//! close checkpoints the WAL into the database. None of that may happen to another program's
//! database, so the store decides from the bytes whether a file is a knotmeter history (or
//! holds nothing yet) before it lets SQLite near it.
//!
//! The facts come from the database header (SQLite's file format, section 1.3): the magic
//! string, `user_version` at offset 60 and `application_id` at offset 68, and the first page's
//! b-tree header at offset 100, which counts the schema entries (`sqlite_master` rows) the
//! first page holds. The committed first page is read from where SQLite itself would take it:
//!
//! * a **rollback journal** (`-journal`) holds the pages a write transaction changed, as they
//!   were before it. When a writer is killed mid-transaction, the journal is *hot* and the
//!   database file may hold half-written pages; the journal's copy of page 1 is the committed
//!   one, and a journal whose "original size" is zero pages means the database was being
//!   created and holds nothing yet (rolling it back truncates the file to zero bytes);
//! * a **WAL** (`-wal`) of a database in WAL mode holds pages committed since the last
//!   checkpoint; the latest copy of page 1 in a committed frame (salts and checksums valid, at
//!   or before a commit frame) is newer than the database file's;
//! * otherwise the database file's own first page.
//!
//! Then: `application_id` equal to [`APPLICATION_ID`] is a history; any other non-zero
//! `application_id` is another program's; an application id of zero with no schema entry is an
//! empty database (nothing anyone could lose by making it a history); an application id of zero
//! with schema entries is another program's (knotmeter writes its tables and its application id
//! in the same transaction). A file that does not start with SQLite's magic string is not a
//! database at all.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::schema::APPLICATION_ID;

/// The first 16 bytes of every SQLite database file.
pub(crate) const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The first 8 bytes of a rollback journal's header.
const JOURNAL_MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];

/// What the file at the history path is, judged without opening it with SQLite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recognised {
    /// Absent, zero bytes, an SQLite database without schema or application id, or a creation
    /// cut short (a hot journal of a zero-page database).
    New,
    /// A knotmeter history with this `user_version` (its schema version).
    Ours {
        /// The schema version.
        version: i64,
    },
    /// Not a knotmeter history; the text says what it is, for the user.
    Foreign(String),
}

/// Reads the file at `path` and its journal or WAL, and says what it is.
pub(crate) fn recognise(path: &Path) -> io::Result<Recognised> {
    let Some(main) = read_prefix(path, 65_536)? else {
        return Ok(Recognised::New);
    };
    if main.is_empty() {
        return Ok(Recognised::New);
    }
    // A hot journal first: the database file may hold half-written pages (page 1 is written
    // last), and the journal knows what was committed.
    let journal = companion(path, "-journal");
    let page1 = match journal_page1(&journal)? {
        Some(JournalFirstPage::CreationCutShort) => return Ok(Recognised::New),
        Some(JournalFirstPage::Page(page)) => page,
        None if main.len() < 100 || &main[..16] != SQLITE_MAGIC => {
            return Ok(Recognised::Foreign(not_a_whole_database(&main)));
        }
        None => main,
    };
    let found = classify(&page1);
    // Only a database in WAL mode whose file does not say it is ours needs its WAL read: the
    // WAL may hold committed pages that do (a history created by knotmeter 0.1.0, which
    // switched to WAL before writing its schema, and killed before a checkpoint), or another
    // program's schema.
    if matches!(found, Recognised::Ours { .. }) || page1.get(18) != Some(&2) {
        return Ok(found);
    }
    Ok(match wal_page1(&companion(path, "-wal"))? {
        Some(page) => classify(&page),
        None => found,
    })
}

/// What a file too short for a database header, or without SQLite's magic string, is: an
/// SQLite database cut short (it starts as one does, but ends before the 100-byte header
/// does: whose it was cannot be told), or not a database at all (named by its first bytes).
fn not_a_whole_database(main: &[u8]) -> String {
    let starts_like_sqlite =
        main.len() < 100 && SQLITE_MAGIC.starts_with(&main[..main.len().min(16)]);
    if starts_like_sqlite {
        return format!(
            "it is an SQLite database cut short at {} bytes, before the end of its 100-byte \
             header: damaged or truncated, so whose it was cannot be told",
            main.len()
        );
    }
    let bytes: Vec<String> = main.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(
        "it is not an SQLite database: it starts with the bytes {}",
        bytes.join(" ")
    )
}

/// `path` with `suffix` appended to its file name: SQLite's names for companion files.
pub(crate) fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The first `limit` bytes of a file, or `None` when it does not exist.
fn read_prefix(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Classifies a committed first page (at least 100 bytes).
fn classify(page1: &[u8]) -> Recognised {
    let application_id = be_i32(page1, 68);
    let version = i64::from(be_i32(page1, 60));
    if application_id == APPLICATION_ID {
        return Recognised::Ours { version };
    }
    let entries = schema_entries(page1);
    if application_id != 0 {
        return Recognised::Foreign(format!(
            "it is an SQLite database with the application_id {application_id:#010x}, not \
             knotmeter's {APPLICATION_ID:#010x}{}",
            tables_text(&entries)
        ));
    }
    match entries {
        Some(SchemaEntries { count: 0, .. }) => Recognised::New,
        entries => Recognised::Foreign(format!(
            "it is an SQLite database of another program (no knotmeter application_id){}",
            tables_text(&entries)
        )),
    }
}

fn tables_text(entries: &Option<SchemaEntries>) -> String {
    match entries {
        Some(e) if !e.tables.is_empty() => format!(" with the tables {}", e.tables.join(", ")),
        Some(e) if e.count > 0 => format!(" with {} schema entries", e.count),
        _ => String::new(),
    }
}

/// The schema entries page 1 holds: how many, and the names of the tables among them (as far
/// as they can be read from the page itself).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SchemaEntries {
    count: usize,
    tables: Vec<String>,
}

/// Reads the b-tree header of page 1; `None` when it is not a table b-tree page (damaged).
fn schema_entries(page: &[u8]) -> Option<SchemaEntries> {
    const LEAF: u8 = 0x0d;
    const INTERIOR: u8 = 0x05;
    let kind = *page.get(100)?;
    let count = usize::from(be_u16(page, 103)?);
    match kind {
        INTERIOR => Some(SchemaEntries {
            // The entries live in child pages; there is at least one.
            count: count.max(1),
            tables: Vec::new(),
        }),
        LEAF => {
            let tables = (0..count)
                .filter_map(|i| {
                    let at = usize::from(be_u16(page, 108 + 2 * i)?);
                    schema_row(page, at)
                })
                .filter(|(kind, name)| kind == "table" && !name.starts_with("sqlite_"))
                .map(|(_, name)| name)
                .collect();
            Some(SchemaEntries { count, tables })
        }
        _ => None,
    }
}

/// The `type` and `name` columns of the `sqlite_master` row in the leaf cell at `at`.
fn schema_row(page: &[u8], at: usize) -> Option<(String, String)> {
    let (_payload, at) = varint(page, at)?;
    let (_rowid, at) = varint(page, at)?;
    let (header_len, after_len) = varint(page, at)?;
    let header_end = at.checked_add(usize::try_from(header_len).ok()?)?;
    let mut cursor = after_len;
    let mut body = header_end;
    let mut texts = Vec::new();
    while texts.len() < 2 && cursor < header_end {
        let (serial, next) = varint(page, cursor)?;
        cursor = next;
        let len = serial_len(serial)?;
        let is_text = serial >= 13 && serial % 2 == 1;
        if !is_text {
            return None;
        }
        let bytes = page.get(body..body.checked_add(len)?)?;
        texts.push(String::from_utf8_lossy(bytes).into_owned());
        body += len;
    }
    let mut texts = texts.into_iter();
    Some((texts.next()?, texts.next()?))
}

/// The length in bytes of a record value of serial type `serial`.
fn serial_len(serial: u64) -> Option<usize> {
    let len = match serial {
        0 | 8 | 9 => 0,
        1..=4 => serial,
        5 => 6,
        6 | 7 => 8,
        10 | 11 => return None,
        // Blobs are even (12 + 2·len), text is odd (13 + 2·len).
        n if n % 2 == 0 => (n - 12) / 2,
        n => (n - 13) / 2,
    };
    usize::try_from(len).ok()
}

/// SQLite's variable-length integer at `at`: its value and the offset after it.
fn varint(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for i in 0..9 {
        let byte = *bytes.get(at + i)?;
        if i == 8 {
            return Some(((value << 8) | u64::from(byte), at + 9));
        }
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, at + i + 1));
        }
    }
    None
}

/// What a rollback journal says about page 1.
enum JournalFirstPage {
    /// The journal's database held zero pages: it was being created.
    CreationCutShort,
    /// Page 1 as it was before the interrupted transaction.
    Page(Vec<u8>),
}

/// Reads a rollback journal, if there is a valid one: its database's original size, and its
/// copy of page 1 if it has one.
fn journal_page1(journal: &Path) -> io::Result<Option<JournalFirstPage>> {
    let Some(bytes) = read_prefix(journal, 16 * 1024 * 1024)? else {
        return Ok(None);
    };
    if bytes.len() < 28 || bytes[..8] != JOURNAL_MAGIC {
        // Empty, zeroed (journal_mode=PERSIST) or not a journal: SQLite ignores it too.
        return Ok(None);
    }
    let nonce = be_u32(&bytes, 12).unwrap_or(0);
    let original_pages = be_u32(&bytes, 16).unwrap_or(0);
    if original_pages == 0 {
        return Ok(Some(JournalFirstPage::CreationCutShort));
    }
    let sector = be_u32(&bytes, 20).map_or(512, |s| s as usize).max(28);
    let page_size = be_u32(&bytes, 24).map_or(0, |s| s as usize);
    if !(512..=65_536).contains(&page_size) {
        return Ok(None);
    }
    let record = 4 + page_size + 4;
    let mut at = sector;
    while at + record <= bytes.len() {
        let page_no = be_u32(&bytes, at).unwrap_or(0);
        let data = &bytes[at + 4..at + 4 + page_size];
        let checksum = be_u32(&bytes, at + 4 + page_size).unwrap_or(0);
        if page_no == 0 || checksum != journal_checksum(nonce, data) {
            break;
        }
        if page_no == 1 {
            return Ok(Some(JournalFirstPage::Page(data.to_vec())));
        }
        at += record;
    }
    Ok(None)
}

/// The checksum SQLite's pager writes after each journaled page.
fn journal_checksum(nonce: u32, page: &[u8]) -> u32 {
    let mut sum = nonce;
    let mut i = page.len() as isize - 200;
    while i > 0 {
        sum = sum.wrapping_add(u32::from(page[i as usize]));
        i -= 200;
    }
    sum
}

/// The latest committed copy of page 1 in a WAL file, if it holds one.
fn wal_page1(wal: &Path) -> io::Result<Option<Vec<u8>>> {
    let Some(bytes) = read_prefix(wal, 64 * 1024 * 1024)? else {
        return Ok(None);
    };
    if bytes.len() < 32 {
        return Ok(None);
    }
    let big_endian = match be_u32(&bytes, 0) {
        Some(0x377f_0682) => false,
        Some(0x377f_0683) => true,
        _ => return Ok(None),
    };
    let page_size = be_u32(&bytes, 8).map_or(0, |s| s as usize);
    let page_size = if page_size == 1 { 65_536 } else { page_size };
    if !(512..=65_536).contains(&page_size) {
        return Ok(None);
    }
    let salts = &bytes[16..24];
    let mut sums = wal_checksum(big_endian, (0, 0), &bytes[..24]);
    if Some(sums) != be_u32(&bytes, 24).zip(be_u32(&bytes, 28)) {
        return Ok(None);
    }
    let (mut pending, mut committed) = (None, None);
    let mut at = 32;
    while at + 24 + page_size <= bytes.len() {
        let header = &bytes[at..at + 24];
        let data = &bytes[at + 24..at + 24 + page_size];
        if &header[8..16] != salts {
            break;
        }
        sums = wal_checksum(big_endian, sums, &header[..8]);
        sums = wal_checksum(big_endian, sums, data);
        if Some(sums) != be_u32(header, 16).zip(be_u32(header, 20)) {
            break;
        }
        if be_u32(header, 0) == Some(1) {
            pending = Some(data.to_vec());
        }
        if be_u32(header, 4).unwrap_or(0) != 0 {
            // A commit frame: everything up to here is committed.
            if pending.is_some() {
                committed = pending.take();
            }
        }
        at += 24 + page_size;
    }
    Ok(committed)
}

/// SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `sums`.
fn wal_checksum(big_endian: bool, sums: (u32, u32), data: &[u8]) -> (u32, u32) {
    let word = |chunk: &[u8]| {
        let b = [chunk[0], chunk[1], chunk[2], chunk[3]];
        if big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let (mut s0, mut s1) = sums;
    for pair in data.chunks_exact(8) {
        s0 = s0.wrapping_add(word(&pair[..4])).wrapping_add(s1);
        s1 = s1.wrapping_add(word(&pair[4..])).wrapping_add(s0);
    }
    (s0, s1)
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn be_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at + 2)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

fn be_i32(bytes: &[u8], at: usize) -> i32 {
    be_u32(bytes, at).map_or(0, |v| v as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_of_one_to_nine_bytes() {
        assert_eq!(varint(&[0x05], 0), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
        assert_eq!(varint(&[0xff; 9], 0), Some((u64::MAX, 9)));
        assert_eq!(varint(&[0x81], 0), None);
    }

    #[test]
    fn serial_types_give_their_lengths() {
        assert_eq!(serial_len(0), Some(0));
        assert_eq!(serial_len(6), Some(8));
        // Text of 5 bytes is serial type 13 + 2·5 = 23; a blob of 5 is 12 + 2·5 = 22.
        assert_eq!(serial_len(23), Some(5));
        assert_eq!(serial_len(22), Some(5));
        assert_eq!(serial_len(10), None);
    }
}
