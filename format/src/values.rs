//! The values both command lines take, the bench binary's and the `knotmeter` tool's, read and
//! refused in one set of words: a time in seconds, a percentage, a baseline name. Each function
//! fits clap's `value_parser` (`Fn(&str) -> Result<T, String>`), and the message of an `Err`
//! follows clap's "invalid value 'X' for '--flag': ".

/// The longest time a budget or a timeout may be: a day.
pub const MAX_SECONDS: f64 = 86_400.0;

/// A number of seconds above 0 and at most [`MAX_SECONDS`] (a budget, a timeout).
///
/// ```
/// use knotmeter_format::values::seconds;
/// assert_eq!(seconds("2.5"), Ok(2.5));
/// assert!(seconds("-1").unwrap_err().contains("above 0"));
/// ```
pub fn seconds(text: &str) -> Result<f64, String> {
    let secs: f64 = text.trim().parse().map_err(|_| {
        format!("`{text}` is not a number of seconds above 0 and at most 86400 (a day)")
    })?;
    if secs > 0.0 && secs <= MAX_SECONDS {
        Ok(secs)
    } else {
        Err(format!(
            "must be a number of seconds above 0 and at most 86400 (a day), not {text}"
        ))
    }
}

/// A percentage from 0 to 1000; a trailing `%` is allowed.
///
/// ```
/// use knotmeter_format::values::percent;
/// assert_eq!(percent("5%"), Ok(5.0));
/// assert!(percent("-1").is_err());
/// ```
pub fn percent(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("`{text}` is not a percentage"))?;
    if (0.0..=1000.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("must be a percentage from 0 to 1000, not {text}"))
    }
}

/// A baseline name: not empty once trimmed.
pub fn baseline_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    if name.is_empty() {
        return Err("a baseline name cannot be empty".into());
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_above_zero_and_at_most_a_day() {
        assert_eq!(seconds(" 86400 "), Ok(86_400.0));
        for bad in ["0", "-1", "86401", "NaN", "inf"] {
            assert!(
                seconds(bad)
                    .unwrap_err()
                    .contains("above 0 and at most 86400"),
                "{bad}"
            );
        }
        assert!(seconds("soon").unwrap_err().starts_with("`soon` is not"));
    }

    #[test]
    fn percentages_run_from_0_to_1000_with_or_without_the_sign() {
        assert_eq!(percent("0"), Ok(0.0));
        assert_eq!(percent("1000%"), Ok(1000.0));
        assert!(percent("1000.5").unwrap_err().contains("from 0 to 1000"));
        assert!(percent("much").unwrap_err().contains("not a percentage"));
    }

    #[test]
    fn a_baseline_name_is_trimmed_and_never_empty() {
        assert_eq!(baseline_name(" main "), Ok("main".to_owned()));
        assert!(baseline_name("  ").is_err());
    }
}
