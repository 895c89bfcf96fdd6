//! The record parser against `serde_json` itself: any bytes are accepted by both or refused by
//! both with the same error text; an accepted record is the value `serde_json` gives (the last of
//! a repeated key counts, keys keep their first place), and the repeated keys it names are those
//! a separate walk of the input finds, once per repetition.
#![no_main]

use std::collections::HashSet;
use std::fmt;

use journalscope::record_json;
use libfuzzer_sys::fuzz_target;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The key `serde_json` (with its `raw_value` feature, which the project enables) reads as a
/// request for a raw value when it opens an object: `Value` then holds the parse of the key's
/// string value, not an object. The record parser reads it as any other key, and so does every
/// view (they read stored records back with the same parser); inputs using it are not compared
/// value for value.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Walks one JSON value, noting each key that repeats one already given in the same object, and
/// every key met.
struct Keys<'a> {
    repeated: &'a mut Vec<String>,
    all: &'a mut HashSet<String>,
}

impl<'de> DeserializeSeed<'de> for Keys<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Keys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Keys {
                repeated: &mut *self.repeated,
                all: &mut *self.all,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = access.next_key::<String>()? {
            access.next_value_seed(Keys {
                repeated: &mut *self.repeated,
                all: &mut *self.all,
            })?;
            self.all.insert(key.clone());
            if !seen.insert(key.clone()) {
                self.repeated.push(key);
            }
        }
        Ok(())
    }
}

/// The keys repeated within one object, once per repetition, and every key, of an input
/// `serde_json` accepts.
fn keys_of(data: &[u8]) -> (Vec<String>, HashSet<String>) {
    let mut repeated = Vec::new();
    let mut all = HashSet::new();
    let mut deserializer = serde_json::Deserializer::from_slice(data);
    Keys {
        repeated: &mut repeated,
        all: &mut all,
    }
    .deserialize(&mut deserializer)
    .expect("an input serde_json accepts can be walked");
    deserializer
        .end()
        .expect("an input serde_json accepts ends after its value");
    (repeated, all)
}

fuzz_target!(|data: &[u8]| {
    let ours = record_json::parse(data);
    let theirs = serde_json::from_slice::<Value>(data);
    match (ours, theirs) {
        (Err(ours), Err(theirs)) => assert_eq!(
            ours.to_string(),
            theirs.to_string(),
            "a refused record gives serde_json's error, word for word"
        ),
        (Ok(parsed), Ok(value)) => {
            let (mut repeated, all) = keys_of(data);
            if !all.contains(RAW_VALUE_TOKEN) {
                assert_eq!(
                    parsed.value, value,
                    "an accepted record is the value serde_json gives"
                );
                assert_eq!(
                    serde_json::to_string(&parsed.value).ok(),
                    serde_json::to_string(&value).ok(),
                    "an accepted record keeps its keys in serde_json's order"
                );
            }
            assert_eq!(
                parsed.duplicate_keys.is_empty(),
                repeated.is_empty(),
                "repeated keys are reported exactly when an object repeats a key"
            );
            let mut reported = parsed.duplicate_keys.clone();
            reported.sort();
            repeated.sort();
            assert_eq!(
                reported, repeated,
                "every repetition of a key is reported once, and nothing else"
            );
        }
        (Ok(_), Err(theirs)) => panic!("a record serde_json refuses ({theirs}) is accepted"),
        (Err(ours), Ok(_)) => panic!("a record serde_json accepts is refused ({ours})"),
    }
});
