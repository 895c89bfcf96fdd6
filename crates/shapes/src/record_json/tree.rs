//! A record's JSON read without copying it: strings borrow the record's bytes where they hold
//! no escape, objects are their entries in order, and nothing is hashed. The import reads every
//! record this way, and a dialect's reader and fold take from it only what they keep; a
//! `serde_json::Value` is made of it only when asked for. The tokens come from `serde_json`'s
//! own deserializer, so a record is refused exactly when, and with the words, it refuses it.

use std::borrow::Cow;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// One JSON value of a record, borrowing from its bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Entries in the order first written; a key given twice keeps its first place and its
    /// last value, as JavaScript and the ordered map do.
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// A record as the import parsed it: its tree, until a dialect that reads `serde_json::Value`s
/// asks for one, which the tree is then made into (its strings moved, not copied).
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed<'a> {
    Tree(Json<'a>),
    Value(Value),
}

/// A record's tree and the keys that were given more than once in one of its objects, each
/// once per repetition, in the order they were met.
pub fn parse_tree(bytes: &[u8]) -> Result<(Parsed<'_>, Vec<String>), serde_json::Error> {
    let mut duplicates = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let tree = Seed {
        duplicates: &mut duplicates,
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok((Parsed::Tree(tree), duplicates))
}

impl Parsed<'_> {
    /// The record as a `serde_json::Value`, made of the tree the first time it is asked for.
    pub fn value(&mut self) -> &Value {
        if let Parsed::Tree(tree) = self {
            *self = Parsed::Value(std::mem::replace(tree, Json::Null).into_value());
        }
        match self {
            Parsed::Value(value) => value,
            // Made a value just above.
            Parsed::Tree(_) => &Value::Null,
        }
    }

    /// The record as a `serde_json::Value`.
    pub fn into_value(self) -> Value {
        match self {
            Parsed::Tree(tree) => tree.into_value(),
            Parsed::Value(value) => value,
        }
    }
}

impl Json<'_> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(on) => Some(*on),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'_>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// The value of `key` when this is an object that holds it.
    pub fn field(&self, key: &str) -> Option<&Self> {
        match self {
            Json::Object(entries) => entries
                .iter()
                .find(|(name, _)| name.as_ref() == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// The value of `key` when this is an object that holds it, to change in place.
    pub fn field_mut(&mut self, key: &str) -> Option<&mut Self> {
        match self {
            Json::Object(entries) => entries
                .iter_mut()
                .find(|(name, _)| name.as_ref() == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(on) => Value::Bool(*on),
            Json::Number(n) => Value::Number(n.clone()),
            Json::Str(text) => Value::String(text.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (key, value) in entries {
                    map.insert(key.to_string(), value.to_value());
                }
                Value::Object(map)
            }
        }
    }

    pub fn into_value(self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(on) => Value::Bool(on),
            Json::Number(n) => Value::Number(n),
            Json::Str(text) => Value::String(text.into_owned()),
            Json::Array(items) => Value::Array(items.into_iter().map(Json::into_value).collect()),
            Json::Object(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for (key, value) in entries {
                    map.insert(key.into_owned(), value.into_value());
                }
                Value::Object(map)
            }
        }
    }
}

/// The JSON text, as `serde_json::Value` writes it: diagnostics quote values so.
impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

/// Objects of up to this many keys look a repeated key up by scanning their entries; larger
/// ones index their keys, so that no object costs the square of its size.
const SCANNED: usize = 16;

struct Seed<'d> {
    duplicates: &'d mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A key, borrowed from the record unless it holds an escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v)))
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed {
            duplicates: &mut *self.duplicates,
        })? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Json<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut index: Option<FxHashMap<Cow<'de, str>, usize>> = None;
        while let Some(key) = access.next_key_seed(Key)? {
            let value = access.next_value_seed(Seed {
                duplicates: &mut *self.duplicates,
            })?;
            if entries.len() == SCANNED && index.is_none() {
                index = Some(
                    entries
                        .iter()
                        .enumerate()
                        .map(|(at, (name, _))| (name.clone(), at))
                        .collect(),
                );
            }
            let repeated = match &mut index {
                Some(index) => match index.get(&key) {
                    Some(&at) => Some(at),
                    None => {
                        index.insert(key.clone(), entries.len());
                        None
                    }
                },
                None => entries.iter().position(|(name, _)| *name == key),
            };
            match repeated {
                Some(at) => {
                    self.duplicates.push(key.into_owned());
                    entries[at].1 = value;
                }
                None => entries.push((key, value)),
            }
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (Result<Value, String>, Result<Value, String>) {
        let tree = parse_tree(text.as_bytes())
            .map(|(parsed, _)| parsed.into_value())
            .map_err(|err| err.to_string());
        let plain = serde_json::from_str::<Value>(text).map_err(|err| err.to_string());
        (tree, plain)
    }

    #[test]
    fn given_records_of_every_shape_when_parsed_as_a_tree_then_the_value_is_serde_jsons() {
        for text in [
            r#"{"a":1,"b":[true,false,null,-2,2.5,"x\"y"],"c":{"d":{}},"e":[]}"#,
            r#""\u00e9\ud83d\ude00""#,
            r#"{"k\u0041":"escaped key"}"#,
            "18446744073709551615",
            "-9223372036854775808",
            "184467440737095516150",
            "1e308",
            "  [1, 2]  ",
        ] {
            let (tree, plain) = both(text);
            assert_eq!(tree, plain, "the tree's value is serde_json's for {text}");
            let as_text = tree.as_ref().map(|value| value.to_string());
            let plain_text = plain.as_ref().map(|value| value.to_string());
            assert_eq!(
                as_text, plain_text,
                "and writes the same text, keys in order"
            );
        }
    }

    #[test]
    fn given_text_that_is_not_json_when_parsed_then_the_error_is_serde_jsons_word_for_word() {
        for text in [
            "", "{", "{\"a\":}", "[1,]", "1e400", "{} {}", "\"\\x\"", "nul", "[1 2]",
        ] {
            let (tree, plain) = both(text);
            assert!(tree.is_err(), "{text:?} is refused");
            assert_eq!(tree, plain, "with serde_json's own words for {text:?}");
        }
        let bad_utf8 = b"{\"a\":\"\xff\"}";
        assert_eq!(
            parse_tree(bad_utf8).map(|_| ()).map_err(|e| e.to_string()),
            serde_json::from_slice::<Value>(bad_utf8)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            "bytes that are not UTF-8 are refused as serde_json refuses them"
        );
    }

    #[test]
    fn given_repeated_keys_in_small_and_large_objects_then_the_last_counts_in_the_first_place() {
        let mut large: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        large.push("\"k3\":\"again\"".to_string());
        large.push("\"k39\":\"again\"".to_string());
        for (text, repeated) in [
            (r#"{"a":1,"b":2,"a":3,"a":4}"#.to_string(), vec!["a", "a"]),
            (format!("{{{}}}", large.join(",")), vec!["k3", "k39"]),
        ] {
            let (parsed, duplicates) = parse_tree(text.as_bytes()).expect("valid JSON");
            assert_eq!(duplicates, repeated, "each repetition is named once");
            let plain: Value = serde_json::from_str(&text).expect("valid JSON");
            let value = parsed.into_value();
            assert_eq!(
                value.to_string(),
                plain.to_string(),
                "the last value counts and the key keeps its first place"
            );
        }
    }

    #[test]
    fn given_a_parsed_record_when_its_value_is_asked_then_the_tree_becomes_that_value() {
        let (mut parsed, _) = parse_tree(br#"{"a":[1,{"b":"c"}]}"#).expect("valid JSON");
        let Parsed::Tree(tree) = &parsed else {
            panic!("a fresh parse is a tree");
        };
        assert_eq!(
            tree.field("a").and_then(Json::as_array).map(<[_]>::len),
            Some(2)
        );
        let expected = serde_json::json!({"a": [1, {"b": "c"}]});
        assert_eq!(parsed.value(), &expected, "the value is the tree's");
        assert!(
            matches!(parsed, Parsed::Value(_)),
            "the tree was made into the value, which is kept"
        );
        assert_eq!(
            parsed.into_value(),
            expected,
            "the kept value is handed over"
        );
    }

    #[test]
    fn given_strings_without_escapes_then_the_tree_borrows_them() {
        let (parsed, _) = parse_tree(br#"{"plain":"text","escaped":"a\nb"}"#).expect("valid");
        let Parsed::Tree(tree) = parsed else {
            panic!("a fresh parse is a tree");
        };
        assert!(
            matches!(tree.field("plain"), Some(Json::Str(Cow::Borrowed("text")))),
            "a string with no escape is read in place"
        );
        assert_eq!(
            tree.field("escaped").and_then(Json::as_str),
            Some("a\nb"),
            "an escaped one is unescaped"
        );
    }
}
