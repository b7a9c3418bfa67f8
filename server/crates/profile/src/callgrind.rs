//! Reading what Valgrind's callgrind wrote: its profile data format
//! (<https://valgrind.org/docs/manual/cl-format.html>), for the first event (`Ir`, instructions
//! executed) and line positions.
//!
//! A cost line (`LINE COST…`) is the cost of the instructions of one source line in the current
//! function: its own cost, charged to the current *source* file, which `fi=`/`fe=` switch to
//! the file of code inlined into the function and back, and `fl=` sets with the function. A
//! `calls=` line is followed by the call's line: the line of the call site and the inclusive
//! cost of the call (the callee and all it called), charged to the caller at that line, never
//! to its own cost. Names may be compressed (`(3) name` once, `(3)` after). Positions are read
//! as `--compress-pos=no` writes them, absolute; relative ones (`+2`, `-1`, `*`) are read too,
//! but not tested against callgrind's own output. Call counts are not used: callgrind counts
//! calls outside the collected region too. The costs must add up to the file's `summary:` or
//! `totals:` line, or the file was cut short.

use std::collections::HashMap;

/// One function's costs in the profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionCost {
    /// The function's name, demangled as callgrind wrote it.
    pub name: String,
    /// The object (executable or library) its code is in.
    pub object: String,
    /// Its own cost: instructions executed in it (inlined code included).
    pub own: u64,
    /// Its own cost and that of every call it made.
    pub inclusive: u64,
    /// Where its costs were: each spot's own instructions, and each call's inclusive cost at
    /// the instruction and line that made it.
    pub spots: HashMap<Spot, u64>,
    /// The inclusive cost of its calls, by callee: the edges of the call graph.
    pub calls: HashMap<String, u64>,
}

impl FunctionCost {
    /// Whether it ran inside the collected region: it executed instructions there (a function
    /// that called anything there executed at least its call). A function with none is an
    /// ancestor of the region (`main`, the harness's frames down to the timed loop), whose
    /// calls' inclusive cost holds the whole region without any of it being its own doing.
    pub fn in_region(&self) -> bool {
        self.own > 0
    }

    /// Its own cost by source line (inlined code's at the inlined line).
    pub fn own_by_line(&self) -> HashMap<&LineKey, u64> {
        let mut lines = HashMap::new();
        for (spot, cost) in self.spots.iter().filter(|(spot, _)| !spot.call) {
            *lines.entry(&spot.at).or_default() += cost;
        }
        lines
    }
}

/// Where a cost was: an instruction (when the profile has instruction positions) and the
/// source line callgrind gives it, and whether it is a call's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spot {
    /// The instruction's address in its object, with `--dump-instr=yes`.
    pub address: Option<u64>,
    /// The innermost source line of the instruction.
    pub at: LineKey,
    /// A call's inclusive cost (after `calls=`), not the instruction's own.
    pub call: bool,
}

/// A source line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineKey {
    /// The source file, as the debug information names it.
    pub file: String,
    /// The line, from 1 (0 where the debug information has none).
    pub line: u32,
}

/// A callgrind profile, summed over its parts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Callgrind {
    /// The first event's name (`Ir`).
    pub event: String,
    /// The total of the first event over the whole profile.
    pub total: u64,
    /// Every function with a cost, in no order.
    pub functions: Vec<FunctionCost>,
}

/// A line of the profile that does not follow the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line's number in the file, from 1.
    pub line: usize,
    /// What was wrong.
    pub why: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for ParseError {}

/// Names that may be compressed: `(id) name` defines, `(id)` refers.
#[derive(Default)]
struct Names(HashMap<String, String>);

impl Names {
    fn read(&mut self, value: &str) -> Result<String, String> {
        let value = value.trim();
        // `(12) name` or `(12)`; a name of its own may start with a parenthesis too:
        // `(below main)`.
        let compressed = value
            .strip_prefix('(')
            .and_then(|rest| rest.split_once(')'))
            .filter(|(id, _)| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
        let Some((id, name)) = compressed else {
            return Ok(value.to_owned());
        };
        let name = name.trim();
        if name.is_empty() {
            self.0
                .get(id)
                .cloned()
                .ok_or_else(|| format!("the compressed name ({id}) was never defined"))
        } else {
            self.0.insert(id.to_owned(), name.to_owned());
            Ok(name.to_owned())
        }
    }
}

/// Where the reader is in the file.
#[derive(Default)]
struct Cursor {
    /// The current object (`ob=`).
    object: String,
    /// The function's own file (`fl=`), and the file its cost lines go to (`fi=`/`fe=`).
    function_file: String,
    source_file: String,
    function: Option<String>,
    /// The last positions read (address, line), for relative positions.
    last: (u64, u64),
    /// The next cost line is a call's (after `calls=`).
    call_pending: bool,
    /// The function the next call is to (`cfn=`).
    callee: Option<String>,
}

/// Reads a whole callgrind output file, with positions `line` or `instr line`.
pub fn parse(text: &str) -> Result<Callgrind, ParseError> {
    let mut reader = Reader::default();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        reader.line(line).map_err(|why| ParseError {
            line: index + 1,
            why,
        })?;
    }
    reader.finish(text.lines().count())
}

/// What has been read of a profile so far.
#[derive(Default)]
struct Reader {
    files: Names,
    functions: Names,
    objects: Names,
    /// The first event's name.
    event: String,
    by_function: HashMap<String, FunctionCost>,
    cursor: Cursor,
    /// Cost lines start with an instruction's address (`positions: instr line`).
    with_address: bool,
    /// The first event's total as the file says it: `totals:` of every part, else `summary:`.
    totals: Option<u64>,
    summary: Option<u64>,
}

impl Reader {
    /// Reads one line that is neither blank nor a comment.
    fn line(&mut self, line: &str) -> Result<(), String> {
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            return self.cost(line);
        }
        let Some((key, value)) = line.split_once(['=', ':']) else {
            return Err(format!("not a line of the format: {line}"));
        };
        self.specification(key, value)
    }

    /// A cost line: the current function's own cost at a spot, or a call's inclusive cost.
    fn cost(&mut self, line: &str) -> Result<(), String> {
        let cursor = &mut self.cursor;
        let (address, position, cost) = cost_line(line, self.with_address, &mut cursor.last)?;
        let Some(function) = cursor.function.clone() else {
            return Err("a cost before any `fn=`".into());
        };
        let spot = Spot {
            address,
            at: LineKey {
                file: cursor.source_file.clone(),
                line: position,
            },
            call: std::mem::take(&mut cursor.call_pending),
        };
        let object = cursor.object.clone();
        let entry = self
            .by_function
            .entry(function.clone())
            .or_insert_with(|| FunctionCost {
                name: function,
                object,
                own: 0,
                inclusive: 0,
                spots: HashMap::new(),
                calls: HashMap::new(),
            });
        let overflow = || "costs past 2^64".to_owned();
        entry.inclusive = entry.inclusive.checked_add(cost).ok_or_else(overflow)?;
        if spot.call {
            let callee = cursor
                .callee
                .clone()
                .ok_or_else(|| "a call without its callee (`cfn=`)".to_owned())?;
            let edge = entry.calls.entry(callee).or_default();
            *edge = edge.checked_add(cost).ok_or_else(overflow)?;
        } else {
            entry.own = entry.own.checked_add(cost).ok_or_else(overflow)?;
        }
        let at = entry.spots.entry(spot).or_default();
        *at = at.checked_add(cost).ok_or_else(overflow)?;
        Ok(())
    }

    /// A specification line, `key=value` or `key: value`.
    fn specification(&mut self, key: &str, value: &str) -> Result<(), String> {
        let cursor = &mut self.cursor;
        match key {
            "fl" => {
                let file = self.files.read(value)?;
                cursor.function_file = file.clone();
                cursor.source_file = file;
            }
            "fi" | "fe" => cursor.source_file = self.files.read(value)?,
            "fn" => {
                cursor.function = Some(self.functions.read(value)?);
                cursor.source_file = cursor.function_file.clone();
            }
            "cfi" | "cfl" => {
                self.files.read(value)?;
            }
            // The callee of the next `calls=`; its cost is its own.
            "cfn" => cursor.callee = Some(self.functions.read(value)?),
            "ob" => cursor.object = self.objects.read(value)?,
            "cob" => {
                self.objects.read(value)?;
            }
            "calls" => cursor.call_pending = true,
            "jump" | "jcnd" => {
                return Err("jumps are not read: run without --collect-jumps".into());
            }
            "positions" => {
                self.with_address = match value.split_whitespace().collect::<Vec<_>>()[..] {
                    ["line"] => false,
                    ["instr", "line"] => true,
                    _ => return Err(format!("positions `{}` are not read", value.trim())),
                }
            }
            "events" => self.event = value.split_whitespace().next().unwrap_or_default().into(),
            "totals" | "summary" => {
                let first = value.split_whitespace().next().unwrap_or_default();
                let total: u64 = first
                    .parse()
                    .map_err(|_| format!("a {key} that is not a number: {first}"))?;
                let slot = if key == "totals" {
                    &mut self.totals
                } else {
                    &mut self.summary
                };
                *slot = Some(slot.unwrap_or(0).saturating_add(total));
            }
            // The header, and per-part descriptions: nothing to read.
            _ => {}
        }
        Ok(())
    }

    /// The profile, once its costs are checked against the total the file declares (`lines`:
    /// how many lines it has, where a mismatch is reported).
    fn finish(self, lines: usize) -> Result<Callgrind, ParseError> {
        let functions: Vec<FunctionCost> = self.by_function.into_values().collect();
        let total = functions
            .iter()
            .try_fold(0u64, |sum, f| sum.checked_add(f.own))
            .ok_or_else(|| ParseError {
                line: 0,
                why: "costs past 2^64".into(),
            })?;
        if let Some(declared) = self.totals.or(self.summary) {
            if declared != total {
                return Err(ParseError {
                    line: lines,
                    why: format!(
                        "the file says its total is {declared}, its costs add up to {total}: it \
                         was cut short or damaged"
                    ),
                });
            }
        }
        Ok(Callgrind {
            event: self.event,
            total,
            functions,
        })
    }
}

/// A cost line's positions and first event: `[ADDRESS] LINE COST…` (the cost is 0 when left
/// out); `last` holds the previous positions, for relative ones, and is updated.
fn cost_line(
    line: &str,
    with_address: bool,
    last: &mut (u64, u64),
) -> Result<(Option<u64>, u32, u64), String> {
    let mut fields = line.split_whitespace();
    let address = if with_address {
        let field = fields.next().unwrap_or_default();
        last.0 = position(field, last.0)?;
        Some(last.0)
    } else {
        None
    };
    let field = fields
        .next()
        .ok_or_else(|| "a cost line without its line position".to_owned())?;
    last.1 = position(field, last.1)?;
    let line_number =
        u32::try_from(last.1).map_err(|_| format!("a line number out of range: {field}"))?;
    let cost = match fields.next() {
        Some(cost) => cost
            .parse()
            .map_err(|_| format!("a cost that is not a number: {cost}"))?,
        None => 0,
    };
    Ok((address, line_number, cost))
}

/// A position: absolute (decimal or `0x` hexadecimal), relative to the last (`+N`, `-N`) or
/// the same (`*`).
fn position(field: &str, last: u64) -> Result<u64, String> {
    let number = |text: &str| -> Result<u64, String> {
        match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        }
        .map_err(|_| format!("a position that is not a number: {field}"))
    };
    match field.as_bytes().first() {
        Some(b'*') => Ok(last),
        Some(b'+') => Ok(last.saturating_add(number(&field[1..])?)),
        Some(b'-') => Ok(last.saturating_sub(number(&field[1..])?)),
        _ => number(field),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "\
# callgrind format
version: 1
positions: line
events: Ir
summary: 155

fl=(1) /ws/src/lib.rs
fn=(1) app::body
10 40
fi=(2) /rustc/core/src/iter.rs
+5 30
fe=(1)
12 5
cfi=(1)
cfn=(2) app::helper
calls=3 20
12 80

fn=(2)
20 60
+1 20

fn=(3) app::main
cfn=(1)
calls=1 10
5 155
";

    #[test]
    fn own_and_call_costs_go_to_their_lines_and_functions() {
        let p = parse(SMALL).unwrap();
        assert_eq!(p.event, "Ir");
        // body: 40 + 30 + 5 of its own; helper 80 of its own.
        assert_eq!(p.total, 155);
        let function = |name: &str| p.functions.iter().find(|f| f.name == name).unwrap();
        assert_eq!(function("app::body").own, 75);
        assert_eq!(function("app::body").inclusive, 155);
        assert_eq!(function("app::helper").own, 80);
        assert_eq!(function("app::helper").inclusive, 80);
        // `main` led to the region and executed nothing in it.
        assert!(!function("app::main").in_region());
        assert_eq!(function("app::main").inclusive, 155);
        let own = function("app::body").own_by_line();
        let at = |file: &str, line: u32| LineKey {
            file: file.into(),
            line,
        };
        assert_eq!(own[&at("/ws/src/lib.rs", 10)], 40);
        // The inlined code's cost goes to the inlined file, at the relative position 10 + 5.
        assert_eq!(own[&at("/rustc/core/src/iter.rs", 15)], 30);
        // After `fe=` the cost is the function's file's again.
        assert_eq!(own[&at("/ws/src/lib.rs", 12)], 5);
        // The call graph's edges, with their inclusive costs.
        assert_eq!(
            function("app::body").calls,
            HashMap::from([("app::helper".into(), 80)])
        );
        assert_eq!(
            function("app::main").calls,
            HashMap::from([("app::body".into(), 155)])
        );
        assert!(function("app::helper").calls.is_empty());
    }

    /// With `--dump-instr=yes` each cost line starts with the instruction's address.
    #[test]
    fn instruction_positions_are_read_with_their_lines() {
        let p = parse(
            "positions: instr line\nevents: Ir\nob=/bin/b\nfl=/ws/b.rs\nfn=f\n0x10 3 7\n+2 * 1\n\
             cfn=g\ncalls=1 0x40 9\n0x14 4 20\n",
        )
        .unwrap();
        let f = &p.functions[0];
        assert_eq!(f.object, "/bin/b");
        let mut spots: Vec<(Option<u64>, u32, bool, u64)> = f
            .spots
            .iter()
            .map(|(s, c)| (s.address, s.at.line, s.call, *c))
            .collect();
        spots.sort();
        assert_eq!(
            spots,
            [
                (Some(0x10), 3, false, 7),
                (Some(0x12), 3, false, 1),
                (Some(0x14), 4, true, 20)
            ]
        );
        assert_eq!((f.own, f.inclusive), (8, 28));
    }

    /// callgrind's own name for the code before `main`, uncompressed, is no reference.
    #[test]
    fn a_name_in_parentheses_is_a_name() {
        let p = parse("events: Ir\nfn=(below main)\n1 3\nfn=(1) f\n2 4\nfn=(1)\n3 5\n").unwrap();
        let mut names: Vec<(&str, u64)> = p
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.own))
            .collect();
        names.sort();
        assert_eq!(names, [("(below main)", 3), ("f", 9)]);
    }

    #[test]
    fn a_damaged_file_says_where() {
        let err = parse("events: Ir\nfn=(9)\n1 2\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.why.contains("never defined"), "{err}");
        let err = parse("events: Ir\n1 2\n").unwrap_err();
        assert!(err.why.contains("before any `fn=`"), "{err}");
        let err = parse("events: Ir\nfn=f\n1 x\n").unwrap_err();
        assert!(err.why.contains("not a number"), "{err}");
        // Cut short: the costs do not add up to the total the header declared.
        let whole = include_str!("../tests/fixtures/callgrind.region.out");
        let cut = &whole[..whole.len() / 2];
        let err = parse(&cut[..cut.rfind('\n').unwrap()]).unwrap_err();
        assert!(err.why.contains("cut short"), "{err}");
    }

    /// A real profile with instruction positions (`--dump-instr=yes`, as `knotmeter profile`
    /// runs callgrind) reads whole: its costs add up to its totals, every cost has its address,
    /// and the body's first instruction is at the address `nm` gave its symbol (0x1cb160:
    /// addresses are the object's own, as the debug information's are).
    #[test]
    fn a_real_profile_with_instruction_positions_reads_whole() {
        let text = include_str!("../tests/fixtures/callgrind.instr.out");
        let p = parse(text).unwrap();
        assert_eq!(p.total, 1_202_386);
        assert!(p
            .functions
            .iter()
            .flat_map(|f| f.spots.keys())
            .all(|spot| spot.address.is_some()));
        let body = p
            .functions
            .iter()
            .find(|f| f.name == "profile_region::region_body_work")
            .unwrap();
        let first = body.spots.keys().filter_map(|s| s.address).min().unwrap();
        assert_eq!(first, 0x1cb160);
        assert!(body.object.contains("profile_region-"), "{}", body.object);
    }

    /// A real profile of the engine's own test (`engine/tests/profile_region.rs` as it was when
    /// the fixture was written, a debug build, collecting the timed region only): the body is
    /// most of it, and the fold's line is the hottest of the test's file.
    #[test]
    fn a_real_profile_of_the_timed_region_reads_whole() {
        let text = include_str!("../tests/fixtures/callgrind.region.out");
        let p = parse(text).unwrap();
        assert_eq!(p.event, "Ir");
        // callgrind's own total, from the file's `totals:` line.
        assert_eq!(p.total, 634_745);
        let body = p
            .functions
            .iter()
            .find(|f| f.name == "profile_region::region_body_work")
            .unwrap();
        assert!(body.own as f64 > 0.8 * p.total as f64, "{body:?}");
        let hot = body
            .own_by_line()
            .into_iter()
            .filter(|(k, _)| k.file.ends_with("engine/tests/profile_region.rs"))
            .max_by_key(|(_, own)| *own)
            .unwrap();
        assert_eq!(
            hot.0.line, 28,
            "the fold's line is the hottest of the test's file"
        );
    }
}
