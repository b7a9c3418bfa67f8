//! Human-readable numbers: durations and byte counts with units, digit grouping and rates.
//!
//! Durations keep three significant digits and move to the next unit when rounding reaches
//! 1000 (`999.9 ns` prints `1.00 µs`). Below one nanosecond they keep two decimals
//! (`0.31 ns`). Values that are not finite print `—`, never `inf` or `NaN`.

use knotmeter_protocol::{Measure, Throughput, ThroughputUnit};

/// Shown in place of a number that does not exist (an infinite rate, a NaN estimate).
pub const MISSING: &str = "—";

/// Units after nanoseconds, each 1000 times the one before.
const UNITS: [&str; 4] = ["ns", "µs", "ms", "s"];

/// `ns` nanoseconds with a human unit and three significant digits: `0.31 ns`, `12.3 ns`,
/// `1.23 µs`, `45.6 ms`, `1.20 s`. Exactly zero prints `0 ns`; seconds beyond 999 are
/// grouped whole seconds (`1 234 s`).
pub fn format_duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return MISSING.to_owned();
    }
    if ns == 0.0 {
        return "0 ns".to_owned();
    }
    let sign = if ns < 0.0 { "-" } else { "" };
    let mut value = ns.abs();
    if value < 1.0 {
        let text = format!("{value:.2}");
        if text != "1.00" {
            return format!("{sign}{text} ns");
        }
    }
    for (index, unit) in UNITS.iter().enumerate() {
        if let Some(text) = three_significant(value) {
            return format!("{sign}{text} {unit}");
        }
        if index + 1 < UNITS.len() {
            value /= 1000.0;
        }
    }
    format!("{sign}{} s", group_digits(value.round() as u64))
}

/// `value` (at least about 1) with three significant digits, or `None` when it rounds to
/// 1000 or more and belongs in the next unit.
fn three_significant(value: f64) -> Option<String> {
    for (decimals, limit) in [(2, 10.0), (1, 100.0), (0, 1000.0)] {
        let text = format!("{value:.decimals$}");
        if text.parse::<f64>().is_ok_and(|rounded| rounded < limit) {
            return Some(text);
        }
    }
    None
}

/// A figure per operation in `measure`'s unit: a time ([`format_duration_ns`]) or a count of
/// instructions ([`format_instructions`]).
pub fn measure_text(value: f64, measure: Measure) -> String {
    match measure {
        Measure::Time => format_duration_ns(value),
        Measure::Instructions => format_instructions(value),
    }
}

/// A count of instructions: whole and grouped below a million (`5 515 instr`, one decimal
/// below ten: `2.5 instr`), then three significant digits (`1.23 M instr`, `45.6 G instr`).
/// Not finite or negative prints `—`.
pub fn format_instructions(count: f64) -> String {
    if !count.is_finite() || count < 0.0 {
        return MISSING.to_owned();
    }
    if count < 10.0 && count.fract() != 0.0 {
        return format!("{count:.1} instr");
    }
    if count < 999_999.5 {
        return format!("{} instr", group_digits(count.round() as u64));
    }
    let mut value = count / 1e6;
    for unit in ["M", "G", "T"] {
        if let Some(text) = three_significant(value) {
            return format!("{text} {unit} instr");
        }
        value /= 1000.0;
    }
    format!("{} T instr", group_digits((value * 1000.0).round() as u64))
}

/// A byte count with a binary unit: whole bytes below 1 KiB as they are (`96 B`), anything
/// else with three significant digits (`12.5 B`, `1.50 KiB`) and two decimals below 1 B.
pub fn format_bytes(bytes: f64) -> String {
    if !bytes.is_finite() || bytes < 0.0 {
        return MISSING.to_owned();
    }
    if bytes < 1.0 {
        return format!("{bytes:.2} B");
    }
    let mut value = bytes;
    let mut unit = 0;
    while value.round() >= 1024.0 && unit + 1 < BYTE_UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = if unit == 0 && value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        three_significant(value).unwrap_or_else(|| format!("{value:.0}"))
    };
    format!("{text} {}", BYTE_UNITS[unit])
}

/// Binary units of bytes, each 1024 times the one before.
const BYTE_UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

/// `n` with a space between groups of three digits: `12 345 678`.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|group| std::str::from_utf8(group).unwrap_or_default())
        .collect();
    groups.join(" ")
}

/// A rate per second: a grouped whole number from 100 up (`81 037 623`), two decimals
/// below (`12.50`), and `—` when it is infinite, negative or NaN.
pub fn format_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec < 0.0 {
        return MISSING.to_owned();
    }
    let text = format!("{per_sec:.2}");
    if text.parse::<f64>().is_ok_and(|rounded| rounded < 100.0) {
        text
    } else {
        group_digits(per_sec.round() as u64)
    }
}

/// A declared throughput's rate with its unit (`1.02 GiB/s`, `147 Melem/s`), or `None` when
/// the estimate gave no rate (a zero time).
pub fn format_throughput(throughput: &Throughput) -> Option<String> {
    let per_sec = throughput
        .per_second
        .filter(|r| r.is_finite() && *r >= 0.0)?;
    let (base, units): (f64, [&str; 5]) = match throughput.unit {
        ThroughputUnit::Bytes => (1024.0, ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"]),
        ThroughputUnit::BytesDecimal => (1000.0, ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"]),
        ThroughputUnit::Bits => (1000.0, ["b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"]),
        ThroughputUnit::Elements => (
            1000.0,
            ["elem/s", "Kelem/s", "Melem/s", "Gelem/s", "Telem/s"],
        ),
    };
    let mut value = per_sec;
    let mut unit = 0;
    while value >= base && unit + 1 < units.len() {
        value /= base;
        unit += 1;
    }
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    Some(format!("{value:.digits$} {}", units[unit]))
}

/// Operations per second for a per-operation time of `ns`, or `None` when the time is zero,
/// negative or not finite (the rate would be infinite or meaningless).
pub fn ops_per_sec(ns: f64) -> Option<f64> {
    (ns.is_finite() && ns > 0.0).then(|| 1e9 / ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The extension's `formatCount` is pinned to the same values (format.test.ts).
    #[test]
    fn counts_are_grouped_below_a_million_then_three_significant_digits() {
        let shown: Vec<String> = [
            5515.0,
            2.5,
            75.0,
            999_999.0,
            1_234_567.0,
            45_600_000_000.0,
            -1.0,
            f64::NAN,
        ]
        .into_iter()
        .map(format_instructions)
        .collect();
        assert_eq!(
            shown,
            [
                "5 515 instr",
                "2.5 instr",
                "75 instr",
                "999 999 instr",
                "1.23 M instr",
                "45.6 G instr",
                "—",
                "—"
            ]
        );
    }

    #[test]
    fn durations_keep_three_significant_digits_per_unit() {
        assert_eq!(format_duration_ns(1.0), "1.00 ns");
        assert_eq!(format_duration_ns(12.34), "12.3 ns");
        assert_eq!(format_duration_ns(123.4), "123 ns");
        assert_eq!(format_duration_ns(1234.0), "1.23 µs");
        assert_eq!(format_duration_ns(45_600_000.0), "45.6 ms");
        assert_eq!(format_duration_ns(1.2e9), "1.20 s");
        assert_eq!(format_duration_ns(999.0e9), "999 s");
    }

    #[test]
    fn durations_move_to_the_next_unit_when_rounding_reaches_it() {
        assert_eq!(format_duration_ns(999.4), "999 ns");
        assert_eq!(format_duration_ns(999.9), "1.00 µs");
        assert_eq!(format_duration_ns(9.996), "10.0 ns");
        assert_eq!(format_duration_ns(99.96), "100 ns");
        assert_eq!(format_duration_ns(999_950.0), "1.00 ms");
        assert_eq!(format_duration_ns(999.96e6), "1.00 s");
    }

    #[test]
    fn sub_nanosecond_zero_and_huge_durations() {
        assert_eq!(format_duration_ns(0.0), "0 ns");
        assert_eq!(format_duration_ns(0.312), "0.31 ns");
        assert_eq!(format_duration_ns(0.004), "0.00 ns");
        assert_eq!(format_duration_ns(0.999), "1.00 ns");
        assert_eq!(format_duration_ns(-0.25), "-0.25 ns");
        assert_eq!(format_duration_ns(-1500.0), "-1.50 µs");
        assert_eq!(format_duration_ns(1_234.4e9), "1 234 s");
    }

    #[test]
    fn non_finite_durations_print_a_dash() {
        assert_eq!(format_duration_ns(f64::NAN), "—");
        assert_eq!(format_duration_ns(f64::INFINITY), "—");
    }

    #[test]
    fn digits_are_grouped_by_three_from_the_right() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1 000");
        assert_eq!(group_digits(12_345_678), "12 345 678");
        assert_eq!(group_digits(u64::MAX), "18 446 744 073 709 551 615");
    }

    #[test]
    fn rates_group_from_one_hundred_and_keep_decimals_below() {
        assert_eq!(format_rate(81_037_622.6), "81 037 623");
        assert_eq!(format_rate(100.0), "100");
        assert_eq!(format_rate(99.994), "99.99");
        assert_eq!(format_rate(99.996), "100");
        assert_eq!(format_rate(12.5), "12.50");
        assert_eq!(format_rate(0.0), "0.00");
        assert_eq!(format_rate(f64::INFINITY), "—");
        assert_eq!(format_rate(-1.0), "—");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(format_bytes(0.0), "0.00 B");
        assert_eq!(format_bytes(96.0), "96 B");
        assert_eq!(format_bytes(1023.0), "1023 B");
        assert_eq!(format_bytes(12.5), "12.5 B");
        assert_eq!(format_bytes(1536.0), "1.50 KiB");
        assert_eq!(format_bytes(1023.9 * 1024.0), "1.00 MiB");
        assert_eq!(format_bytes(1023.4), "1023 B");
        assert_eq!(format_bytes(3.0 * 1024.0 * 1024.0), "3.00 MiB");
        assert_eq!(format_bytes(f64::NAN), "—");
    }

    #[test]
    fn throughput_is_shown_in_its_declared_unit() {
        let at = |unit, per_op, ns| format_throughput(&Throughput::at(unit, per_op, ns, ns, ns));
        assert_eq!(
            at(ThroughputUnit::Bytes, 1024, 1000.0).unwrap(),
            "977 MiB/s"
        );
        assert_eq!(
            at(ThroughputUnit::BytesDecimal, 1000, 1.0).unwrap(),
            "1.00 TB/s"
        );
        assert_eq!(
            at(ThroughputUnit::Elements, 100, 680.0).unwrap(),
            "147 Melem/s"
        );
        assert_eq!(at(ThroughputUnit::Bits, 8, 1e9).unwrap(), "8.00 b/s");
        assert_eq!(at(ThroughputUnit::Bytes, 64, 0.0), None);
    }

    #[test]
    fn ops_per_sec_is_absent_for_a_zero_time() {
        assert_eq!(ops_per_sec(0.0), None);
        assert_eq!(ops_per_sec(f64::NAN), None);
        assert_eq!(ops_per_sec(4.0), Some(250_000_000.0));
    }
}
