//! A record's JSON text parsed in one pass, noticing what a plain parse forgives silently: a
//! key that appears twice in one object (the last one counts, as in JavaScript, so the reader
//! and the fold agree with what the producer's own runtime would have seen). The nesting limit
//! of `serde_json` still applies, so no input can exhaust the stack. The import reads each
//! record as a tree borrowing its bytes ([`parse_tree`]); every later reading of a stored
//! record makes a `Value` of the same tree ([`parse`]), so both see one record alike. Readers
//! and folds look fields up with [`Node`] (either form) or [`Field`] (a `Value`).

mod tree;

use serde_json::{Map, Number, Value};

pub use tree::{parse_tree, Json, Parsed};

/// A parsed record and the keys that were given more than once in one of its objects.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRecord {
    pub value: Value,
    /// Each repeated key once per repetition, in the order they were met.
    pub duplicate_keys: Vec<String>,
}

pub fn parse(bytes: &[u8]) -> Result<ParsedRecord, serde_json::Error> {
    let (parsed, duplicate_keys) = parse_tree(bytes)?;
    Ok(ParsedRecord {
        value: parsed.into_value(),
        duplicate_keys,
    })
}

/// A record's value as the import read it, for every later reading of its stored bytes: the
/// views see what the reader and the fold saw. (A plain `serde_json` parse differs on one key:
/// with the `raw_value` feature it takes `"$serde_json::private::RawValue"` for a marker, not a
/// key.)
pub fn value(bytes: &[u8]) -> Option<Value> {
    parse(bytes).ok().map(|parsed| parsed.value)
}

/// A field of a parsed object, found the way that suits the object's size: an event's objects
/// hold a handful of keys, and comparing them in order costs less than hashing the name, which
/// the map's own lookup does for every call (a reader and a fold ask for a dozen fields a record).
pub trait Field {
    fn field(&self, key: &str) -> Option<&Value>;
}

/// Objects up to this many keys are searched in order.
const SCANNED: usize = 16;

impl Field for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCANNED {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

impl Field for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|object| object.field(key))
    }
}

/// A JSON value a reader or a fold looks into, owned (`Value`, a stored record read back) or
/// borrowed from the record's bytes (`Json`, as the import reads it): the same code reads both.
pub trait Node: std::fmt::Display + Sized {
    /// The value of `key` when this is an object that holds it.
    fn field(&self, key: &str) -> Option<&Self>;
    fn as_str(&self) -> Option<&str>;
    fn as_number(&self) -> Option<&Number>;
    fn as_bool(&self) -> Option<bool>;
    fn as_array(&self) -> Option<&[Self]>;
    fn is_null(&self) -> bool;
    fn is_object(&self) -> bool;
    fn to_value(&self) -> Value;
    /// This object as a `Value` without `key` (any other value as it is): what a fold keeps
    /// when it holds a large field apart.
    fn to_value_without(&self, key: &str) -> Value;

    fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }
}

impl Node for Value {
    fn field(&self, key: &str) -> Option<&Value> {
        Field::field(self, key)
    }

    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }

    fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        Value::as_bool(self)
    }

    fn as_array(&self) -> Option<&[Value]> {
        Value::as_array(self).map(Vec::as_slice)
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn is_object(&self) -> bool {
        Value::is_object(self)
    }

    fn to_value(&self) -> Value {
        self.clone()
    }

    fn to_value_without(&self, key: &str) -> Value {
        match self {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(name, _)| name.as_str() != key)
                    .map(|(name, value)| (name.clone(), value.clone()))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

impl Node for Json<'_> {
    fn field(&self, key: &str) -> Option<&Self> {
        Json::field(self, key)
    }

    fn as_str(&self) -> Option<&str> {
        Json::as_str(self)
    }

    fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        Json::as_bool(self)
    }

    fn as_array(&self) -> Option<&[Self]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        Json::is_null(self)
    }

    fn is_object(&self) -> bool {
        Json::is_object(self)
    }

    fn to_value(&self) -> Value {
        Json::to_value(self)
    }

    fn to_value_without(&self, key: &str) -> Value {
        match self {
            Json::Object(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (name, value) in entries.iter().filter(|(name, _)| name.as_ref() != key) {
                    map.insert(name.to_string(), value.to_value());
                }
                Value::Object(map)
            }
            other => other.to_value(),
        }
    }
}

/// Whether JavaScript reads `value` as true, `None` being `undefined`: producers written in
/// JavaScript test their own fields so, and a reader that decides as they did must too.
pub fn js_truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(on)) => *on,
        Some(Value::Number(number)) => number.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `String(value)` as JavaScript writes it, `None` being `undefined`.
pub fn js_string(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Bool(on)) => on.to_string(),
        Some(Value::Number(number)) => match number.as_f64() {
            Some(n)
                if n.fract() == 0.0 && n.abs() < 1e21 && !number.is_i64() && !number.is_u64() =>
            {
                format!("{n:.0}")
            }
            _ => number.to_string(),
        },
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_string(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_like_serde_json_and_names_repeated_keys() {
        let text = br#"{"offset":2,"offset":3,"payload":{"role":"user","role":"system","n":[1,-2,2.5,null,true]}}"#;
        let parsed = parse(text).expect("valid JSON");
        let plain: Value = serde_json::from_slice(text).expect("valid JSON");
        assert_eq!(
            parsed.value, plain,
            "the value is what serde_json gives: the last key counts"
        );
        assert_eq!(
            parsed.duplicate_keys,
            ["offset", "role"],
            "every repeated key is named"
        );
    }

    #[test]
    fn a_field_is_found_as_the_map_finds_it_at_every_size() {
        for keys in [0, 1, 2, SCANNED - 1, SCANNED, SCANNED + 1, 3 * SCANNED] {
            // Given an object of `keys` keys, one of them a prefix of another
            let mut object = Map::new();
            for i in 0..keys {
                object.insert(format!("k{i}"), Value::from(i));
            }
            let value = Value::Object(object.clone());
            // When each name is looked up, and names it does not hold
            for i in 0..keys + 2 {
                let name = format!("k{i}");
                // Then the scan and the map agree
                assert_eq!(
                    object.field(&name),
                    object.get(&name),
                    "{name} in an object of {keys} keys is found by either lookup, or by neither"
                );
                assert_eq!(
                    Field::field(&value, &name),
                    value.get(&name),
                    "a value that is an object answers as its map"
                );
            }
        }
        assert_eq!(
            Field::field(&Value::from("k0"), "k0"),
            None,
            "a value that is not an object has no fields"
        );
    }

    #[test]
    fn a_key_serde_json_takes_for_its_raw_value_marker_is_read_as_a_key() {
        // Given a record whose only key is the name `serde_json` gives its raw-value marker
        let text = br#"{"$serde_json::private::RawValue":"[1,2]"}"#;
        // When it is read as the import reads it, and as the views read it back
        let parsed = parse(text).expect("valid JSON");
        // Then both see the object the producer wrote
        assert_eq!(
            parsed.value,
            serde_json::json!({"$serde_json::private::RawValue": "[1,2]"}),
            "the import reads the object as written"
        );
        assert_eq!(
            value(text),
            Some(parsed.value),
            "a view reading the stored bytes sees what the import saw"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(
            parse(deep.as_bytes()).is_err(),
            "the recursion limit refuses 100,000 levels"
        );
    }

    #[test]
    fn trailing_text_is_an_error() {
        assert!(parse(b"{} {}").is_err(), "one record holds one value");
        assert!(parse(b"1e400").is_err(), "numbers beyond f64 are refused");
    }

    #[test]
    fn given_values_of_each_kind_when_read_as_javascript_then_truth_and_text_are_its_own() {
        let cases = [
            (None, false, "undefined"),
            (Some(json!(null)), false, "null"),
            (Some(json!("")), false, ""),
            (Some(json!("a")), true, "a"),
            (Some(json!(0)), false, "0"),
            (Some(json!(2.0)), true, "2"),
            (Some(json!(1.5)), true, "1.5"),
            (Some(json!([1, null, "b"])), true, "1,,b"),
            (Some(json!({})), true, "[object Object]"),
        ];
        for (value, truth, text) in cases {
            assert_eq!(
                js_truthy(value.as_ref()),
                truth,
                "{value:?}: Boolean(value)"
            );
            assert_eq!(js_string(value.as_ref()), text, "{value:?}: String(value)");
        }
    }
}
