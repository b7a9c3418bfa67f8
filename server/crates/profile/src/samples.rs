//! What perf sampled, as `perf script --no-inline -F ip,sym,dso` prints it: each sample's call
//! chain, innermost frame first, one frame a line (`\t3d88bd name (/path/of/object)`, the
//! address relative to the object's file), a blank line after each sample; and where an
//! object's file offsets are in the addresses its debug information uses.

use std::collections::HashMap;
use std::path::Path;

/// One frame of a sampled call chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledFrame {
    /// The address, relative to its object's file as perf prints it.
    pub address: u64,
    /// The function's name (index into [`Samples::names`]).
    pub name: usize,
    /// The object it is in (index into [`Samples::objects`]).
    pub object: usize,
}

/// Every sample perf took, each a call chain from its innermost frame out; names and objects
/// are kept once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    /// The samples' call chains.
    pub chains: Vec<Vec<SampledFrame>>,
    /// The functions' names (`[unknown]` where perf had none).
    pub names: Vec<String>,
    /// The objects' paths as perf names them (`[kernel.kallsyms]` for the kernel).
    pub objects: Vec<String>,
}

/// Reads `perf script --no-inline -F ip,sym,dso`'s output; a frame line that does not follow
/// the format is an error naming its line.
pub fn parse_script(text: &str) -> Result<Samples, String> {
    let mut samples = Samples::default();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut objects: HashMap<String, usize> = HashMap::new();
    let mut chain = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if !chain.is_empty() {
                samples.chains.push(std::mem::take(&mut chain));
            }
            continue;
        }
        let frame = parse_frame(trimmed).ok_or_else(|| {
            format!(
                "perf script's line {} is not a frame (`ADDRESS NAME (OBJECT)`): {trimmed:?}",
                number + 1
            )
        })?;
        let (address, name, object) = frame;
        let name = *names.entry(name.to_owned()).or_insert_with(|| {
            samples.names.push(name.to_owned());
            samples.names.len() - 1
        });
        let object = *objects.entry(object.to_owned()).or_insert_with(|| {
            samples.objects.push(object.to_owned());
            samples.objects.len() - 1
        });
        chain.push(SampledFrame {
            address,
            name,
            object,
        });
    }
    if !chain.is_empty() {
        samples.chains.push(chain);
    }
    Ok(samples)
}

/// `3d88bd <std::fs::File as std::io::Write>::write (/path/bin)` → its three parts. A name may
/// hold spaces and parentheses; the object is the last parenthesised part.
fn parse_frame(line: &str) -> Option<(u64, &str, &str)> {
    let (address, rest) = line.split_once(' ')?;
    let address = u64::from_str_radix(address, 16).ok()?;
    let (name, object) = rest.trim().strip_suffix(')')?.rsplit_once(" (")?;
    Some((address, name.trim(), object))
}

/// Where an object's file offsets are in its virtual addresses (the debug information's
/// addresses): its loaded segments, each `(file offset, size, virtual address)`.
#[derive(Debug, Clone, Default)]
pub struct Segments(Vec<(u64, u64, u64)>);

impl Segments {
    /// Segments from their `(file offset, size, virtual address)`.
    pub fn from_ranges(ranges: Vec<(u64, u64, u64)>) -> Self {
        Segments(ranges)
    }

    /// The loaded segments of the ELF file at `path`; none when it cannot be read.
    pub fn of(path: &Path) -> Self {
        use object::{Object, ObjectSegment};
        let Ok(data) = std::fs::read(path) else {
            return Segments::default();
        };
        let Ok(file) = object::File::parse(&*data) else {
            return Segments::default();
        };
        Segments(
            file.segments()
                .map(|segment| {
                    let (offset, size) = segment.file_range();
                    (offset, size, segment.address())
                })
                .collect(),
        )
    }

    /// The virtual address of file offset `offset`, when a loaded segment holds it.
    pub fn address_of(&self, offset: u64) -> Option<u64> {
        self.0
            .iter()
            .find(|(start, size, _)| (*start..start + size).contains(&offset))
            .map(|(start, _, address)| address + (offset - start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "
\tffffffff8224f5f9 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\t           f8350 __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          3d88bd <std::fs::File as std::io::Write>::write (/t/bench-1)

\t            9a10 b::body (/t/bench-1)
\t            d58b0 knotmeter::measure::routine::time_batch (/t/bench-1)
\t               0 [unknown] ([unknown])
";

    #[test]
    fn each_sample_is_its_chain_and_names_are_kept_once() {
        let samples = parse_script(SCRIPT).unwrap();
        assert_eq!(samples.chains.len(), 2);
        assert_eq!(samples.chains[0].len(), 3);
        let write = samples.chains[0][2];
        assert_eq!(write.address, 0x3d88bd);
        assert_eq!(
            samples.names[write.name],
            "<std::fs::File as std::io::Write>::write"
        );
        assert_eq!(samples.objects[write.object], "/t/bench-1");
        assert_eq!(
            samples.chains[1][0].object, write.object,
            "one object, kept once"
        );
        assert_eq!(samples.names[samples.chains[1][2].name], "[unknown]");
        assert_eq!(samples.objects.len(), 4);
    }

    #[test]
    fn a_line_that_is_not_a_frame_is_an_error_naming_it() {
        let error = parse_script("\n\tzz nothing\n").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
        assert!(error.contains("zz nothing"), "{error}");
    }

    #[test]
    fn a_real_executables_segments_are_read() {
        let exe = std::env::current_exe().unwrap();
        let segments = Segments::of(&exe);
        assert!(!segments.0.is_empty(), "{}", exe.display());
        let &(offset, size, address) = segments.0.iter().find(|s| s.1 > 0).unwrap();
        assert_eq!(segments.address_of(offset), Some(address));
        assert_eq!(
            segments.address_of(offset + size - 1),
            Some(address + size - 1)
        );
        assert_eq!(Segments::of(Path::new("/nonexistent")).0.len(), 0);
    }

    #[test]
    fn file_offsets_become_addresses_through_their_segment() {
        let segments = Segments::from_ranges(vec![(0, 0xd46f4, 0), (0xd4700, 0x31fac0, 0xd5700)]);
        assert_eq!(segments.address_of(0x1b58cc), Some(0x1b68cc));
        assert_eq!(segments.address_of(0x100), Some(0x100));
        assert_eq!(segments.address_of(0x10_000_000), None);
    }
}
