//! What is measured: wall time, as in criterion's default [`WallTime`].
//!
//! The [`Measurement`] trait is criterion's, so that code naming it (`Criterion<WallTime>`,
//! `BenchmarkGroup<'_, WallTime>`, generic helpers over `M: Measurement`) compiles. knotmeter
//! measures wall time only: a benchmark under a custom measurement (cycles, instructions) fails
//! with a message that says so, rather than report a number in units nobody asked for.

use std::time::{Duration, Instant};

use crate::Throughput;

/// Formats measured values for display (criterion's trait; knotmeter formats its own results).
pub trait ValueFormatter {
    /// Formats one value with its unit.
    fn format_value(&self, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_values(value, &mut values);
        format!("{:>6.2} {}", values[0], unit)
    }

    /// Formats a throughput for one value.
    fn format_throughput(&self, throughput: &Throughput, value: f64) -> String {
        let mut values = [value];
        let unit = self.scale_throughputs(value, throughput, &mut values);
        format!("{:>6.2} {}", values[0], unit)
    }

    /// Scales `values` to a unit suited to `typical_value` and returns the unit.
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str;

    /// Scales `values` (times per iteration) to throughputs and returns the unit.
    fn scale_throughputs(
        &self,
        typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str;

    /// Scales `values` for machine-readable output and returns the unit.
    fn scale_for_machines(&self, values: &mut [f64]) -> &'static str;
}

/// Something a benchmark can measure (criterion's trait). Only [`WallTime`] is measured by
/// knotmeter.
pub trait Measurement {
    /// The value taken when a measurement starts.
    type Intermediate;
    /// The measured value.
    type Value;
    /// Starts a measurement.
    fn start(&self) -> Self::Intermediate;
    /// Ends a measurement.
    fn end(&self, i: Self::Intermediate) -> Self::Value;
    /// Adds two values.
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value;
    /// The zero value.
    fn zero(&self) -> Self::Value;
    /// A value as a number (nanoseconds for [`WallTime`]).
    fn to_f64(&self, value: &Self::Value) -> f64;
    /// Formats values of this measurement.
    fn formatter(&self) -> &dyn ValueFormatter;

    /// Whether this is wall time, the one measurement knotmeter takes. Not part of criterion's
    /// API; implementations outside this crate keep the default.
    #[doc(hidden)]
    fn __knotmeter_is_wall_time(&self) -> bool {
        false
    }
}

/// Wall-clock time, in nanoseconds: what knotmeter measures.
#[derive(Debug, Clone, Copy, Default)]
pub struct WallTime;

struct DurationFormatter;

impl ValueFormatter for DurationFormatter {
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical_value < 1e3 {
            (1.0, "ns")
        } else if typical_value < 1e6 {
            (1e-3, "µs")
        } else if typical_value < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let (per_iteration, unit) = match *throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n, "B/s"),
            Throughput::Elements(n) => (n, "elem/s"),
            Throughput::Bits(n) => (n, "b/s"),
        };
        values
            .iter_mut()
            .for_each(|v| *v = per_iteration as f64 * 1e9 / *v);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for WallTime {
    type Intermediate = Instant;
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        Instant::now()
    }

    fn end(&self, i: Self::Intermediate) -> Self::Value {
        i.elapsed()
    }

    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value {
        *v1 + *v2
    }

    fn zero(&self) -> Self::Value {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Self::Value) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &DurationFormatter
    }

    fn __knotmeter_is_wall_time(&self) -> bool {
        true
    }
}
