//! The field rules the decoder applies: strings, identifiers, counts, and the two date-time
//! forms the protocol accepts.

use serde_json::{Map, Value};

pub(super) fn str_field<'a>(
    object: &'a Map<String, Value>,
    field: &str,
    at: &str,
) -> Result<&'a str, String> {
    match object.get(field) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("{at}.{field} is {}, not a string", kind_of(other))),
        None => Err(format!("{at}.{field} is missing")),
    }
}

/// An optional field is absent or of its type; `null` is neither.
pub(super) fn optional_str(
    object: &Map<String, Value>,
    field: &str,
    at: &str,
) -> Result<Option<String>, String> {
    match object.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{at}.{field} is {}, not a string", kind_of(other))),
    }
}

/// `prefix` is the path before the field name, so envelope fields read bare.
pub(super) fn identifier(
    object: &Map<String, Value>,
    field: &str,
    prefix: &str,
) -> Result<String, String> {
    match object.get(field) {
        Some(Value::String(s)) if is_identifier(s) => Ok(s.clone()),
        Some(Value::String(s)) => Err(format!(
            "{prefix}{field} {s:?} is not an identifier ([A-Za-z0-9][A-Za-z0-9._:-]{{0,127}})"
        )),
        Some(other) => Err(format!(
            "{prefix}{field} is {}, not a string",
            kind_of(other)
        )),
        None => Err(format!("{prefix}{field} is missing")),
    }
}

/// `[A-Za-z0-9][A-Za-z0-9._:-]{0,127}`.
pub fn is_identifier(text: &str) -> bool {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(first) if first.is_ascii_alphanumeric() => {}
        _ => return false,
    }
    bytes.len() <= 128
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

pub(super) fn is_diagnostic_code(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_uppercase)
        && bytes
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
}

/// JSON has one number type; the protocol's integers are numbers without a fraction, so `3.0`
/// counts as 3.
pub(super) fn non_negative_integer(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0)
        .then_some(f as u64)
}

pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or a `±HH[:]MM` / `±HH` offset: the
/// ISO-8601 date-times the protocol's `emittedAt` accepts.
pub fn is_iso_datetime(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 17 || !valid_date(&b[..10]) || b[10] != b'T' {
        return false;
    }
    let Some(rest) = time_of_day(&b[11..], false) else {
        return false;
    };
    match rest {
        b"Z" => true,
        [b'+' | b'-', h1, h2, tail @ ..] => {
            let Some(hours) = two_digits(*h1, *h2) else {
                return false;
            };
            let minutes = match tail {
                [] => Some(0),
                [m1, m2] => two_digits(*m1, *m2),
                [b':', m1, m2] => two_digits(*m1, *m2),
                _ => None,
            };
            hours <= 23 && minutes.is_some_and(|m| m <= 59)
        }
        _ => false,
    }
}

/// `YYYY-MM-DDTHH:MM:SS.sssZ`, the only form AgentsKit writes a message's `createdAt` in.
pub fn is_canonical_instant(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 24
        && valid_date(&b[..10])
        && b[10] == b'T'
        && time_of_day(&b[11..], true) == Some(b"Z")
        && b[19] == b'.'
}

/// Parses `HH:MM[:SS[.fraction]]`, returning what follows it. `strict` demands seconds and
/// exactly three fraction digits.
pub(super) fn time_of_day(b: &[u8], strict: bool) -> Option<&[u8]> {
    if b.len() < 5 || b[2] != b':' {
        return None;
    }
    let hours = two_digits(b[0], b[1])?;
    let minutes = two_digits(b[3], b[4])?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    let mut rest = &b[5..];
    if let [b':', s1, s2, tail @ ..] = rest {
        if two_digits(*s1, *s2)? > 59 {
            return None;
        }
        rest = tail;
        if let [b'.', tail @ ..] = rest {
            let digits = tail.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 || (strict && digits != 3) {
                return None;
            }
            rest = &tail[digits..];
        } else if strict {
            return None;
        }
    } else if strict {
        return None;
    }
    Some(rest)
}

pub(super) fn two_digits(a: u8, b: u8) -> Option<u32> {
    (a.is_ascii_digit() && b.is_ascii_digit())
        .then(|| u32::from(a - b'0') * 10 + u32::from(b - b'0'))
}

pub(super) fn valid_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(c), Some(y), Some(month), Some(day)) = (
        two_digits(b[0], b[1]),
        two_digits(b[2], b[3]),
        two_digits(b[5], b[6]),
        two_digits(b[8], b[9]),
    ) else {
        return false;
    };
    let year = c * 100 + y;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}
