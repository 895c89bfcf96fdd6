//! The small pieces of text every command's rendering shares: an offset, a diagnostic's line
//! and how a token count was made, each the same whichever view prints it.

use crate::diagnostic::Diagnostic;
use crate::tokens::Tokenizer;

/// `@12`, or `-` for a record without an offset.
pub fn offset_text(offset: Option<i64>) -> String {
    offset.map_or_else(|| "-".to_string(), |o| format!("@{o}"))
}

/// A diagnostic in one line of aligned columns (line, offset, severity, code, message),
/// without its line break: the diagnostics list and every view that lists some print it so.
pub fn diagnostic_line(d: &Diagnostic) -> String {
    let severity = d.severity.as_str();
    format!(
        "  line {:<5} {:>7}  {severity:<7} {:<36} {}",
        d.line,
        offset_text(d.offset),
        d.code,
        d.message
    )
}

/// How a count was made, in a few words: the encoding, and whether it is an estimate.
pub fn token_method(tokenizer: &Tokenizer) -> String {
    if tokenizer.exact {
        format!("{}, exact", tokenizer.encoding.as_str())
    } else {
        format!("{}, an estimate", tokenizer.encoding.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_a_diagnostic_when_lined_then_its_columns_align_and_a_missing_offset_is_a_dash() {
        // Given a warning without an offset
        let d = Diagnostic::warning(7, None, "odd", "a warning");
        // When it is put on one line
        let line = diagnostic_line(&d);
        // Then the columns sit where every list prints them
        assert_eq!(
            line,
            format!("  line 7           -  warning {:<36} a warning", "odd"),
            "the diagnostics list and the views print the same line"
        );
        assert_eq!(
            offset_text(Some(3)),
            "@3",
            "an offset is written with its @"
        );
    }
}
