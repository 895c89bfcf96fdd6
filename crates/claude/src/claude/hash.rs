//! The hashes Claude Code addresses its request record by (2.1.3xx): a message's hash and a
//! request's digest are SHA-256 of a canonical JSON text, its keys sorted and nothing between
//! tokens, written as the client's `JSON.stringify` writes strings and numbers.

use serde_json::Value;

use journalscope_shapes::record_json::Field;

/// The canonical text of `value`: object keys sorted by UTF-16 code units (as JavaScript
/// sorts strings), no white space; with `without_cache_control`, every `cache_control` key is
/// left out wherever it is.
pub fn canonical(value: &Value, without_cache_control: bool) -> String {
    let mut out = String::new();
    write(value, without_cache_control, &mut out);
    out
}

fn write(value: &Value, without_cache_control: bool, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| !(without_cache_control && k.as_str() == "cache_control"))
                .collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(key, out);
                out.push(':');
                if let Some(v) = map.get(key) {
                    write(v, without_cache_control, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, without_cache_control, out);
            }
            out.push(']');
        }
        Value::String(text) => string(text, out),
        Value::Number(number) => out.push_str(&number_text(number)),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Null => out.push_str("null"),
    }
}

/// A string as `JSON.stringify` writes it: serde_json escapes the same characters the same way
/// (quotes, backslashes, control characters, short forms where JSON has them, lower-case hex).
fn string(text: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

/// A number as `JavaScript` writes it: integers without a fraction, large and small magnitudes
/// with a signed exponent (`1e+21`), the shortest digits that read back the same otherwise.
pub fn number_text(number: &serde_json::Number) -> String {
    if let Some(i) = number.as_i64() {
        return i.to_string();
    }
    if let Some(u) = number.as_u64() {
        return u.to_string();
    }
    let Some(f) = number.as_f64() else {
        return number.to_string();
    };
    if f.fract() == 0.0 && f.abs() < 1e21 {
        return format!("{f:.0}");
    }
    let text = number.to_string();
    match text.split_once('e') {
        Some((mantissa, exponent)) if !exponent.starts_with(['-', '+']) => {
            format!("{mantissa}e+{exponent}")
        }
        _ => text,
    }
}

/// Lower-case hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest.as_ref() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// A message's content as blocks, as the client reads a transcript line's: a string is one
/// text block, a list its blocks, anything else one block.
pub fn content_blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        other => vec![other.clone()],
    }
}

/// A message as its hash reads it: a string content is one text block.
pub fn as_blocks(message: &Value) -> Value {
    match message.field("content") {
        Some(Value::String(text)) => {
            let mut message = message.clone();
            message["content"] = serde_json::json!([{"type": "text", "text": text}]);
            message
        }
        _ => message.clone(),
    }
}

/// The hash of a message as Claude Code's request record names it: the canonical text of the
/// message with a string content taken as one text block and no `cache_control`.
pub fn message_hash(message: &Value) -> String {
    sha256_hex(&canonical(&as_blocks(message), true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sort_by_utf16_units_and_nothing_separates_tokens() {
        let value = json!({"b": 1, "a": [true, null, "x"], "\u{ff61}": 0, "\u{1f600}": 0});
        // U+1F600 is D83D DE00 in UTF-16, which sorts before U+FF61, though not in UTF-8.
        assert_eq!(
            canonical(&value, false),
            "{\"a\":[true,null,\"x\"],\"b\":1,\"\u{1f600}\":0,\"\u{ff61}\":0}",
            "keys in JavaScript's order, compact"
        );
    }

    #[test]
    fn cache_control_is_left_out_at_any_depth_only_when_asked() {
        let value = json!({"content": [{"type": "text", "text": "t", "cache_control": {"type": "ephemeral"}}]});
        assert!(
            !canonical(&value, true).contains("cache_control"),
            "left out for a message hash"
        );
        assert!(
            canonical(&value, false).contains("cache_control"),
            "kept for a digest"
        );
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        let text = |v: Value| canonical(&v, false);
        assert_eq!(text(json!(1.0)), "1", "an integral float has no fraction");
        assert_eq!(text(json!(0.5)), "0.5");
        assert_eq!(text(json!(-3)), "-3");
        assert_eq!(
            text(json!(1e21)),
            "1e+21",
            "a large magnitude has a signed exponent"
        );
        assert_eq!(text(json!(1.5e-7)), "1.5e-7");
    }

    #[test]
    fn a_string_content_hashes_as_one_text_block() {
        let string = json!({"role": "user", "content": "hi"});
        let blocks = json!({"role": "user", "content": [{"type": "text", "text": "hi"}]});
        assert_eq!(
            message_hash(&string),
            message_hash(&blocks),
            "both forms name one message"
        );
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "SHA-256 of nothing"
        );
    }
}
