//! The record tree the import reads against the value the views read back: any bytes are
//! refused by both with the same words or accepted by both with the same value and the same
//! repeated keys, and the iterate reader and event parser find the same in either.
#![no_main]

use journalscope_iterate::iterate::{event, Reader};
use journalscope::record_json::{self, Parsed};
use journalscope::source::RawRecord;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tree = record_json::parse_tree(data);
    let value = record_json::parse(data);
    match (tree, value) {
        (Err(tree), Err(value)) => assert_eq!(
            tree.to_string(),
            value.to_string(),
            "a refused record gives the same error either way"
        ),
        (Ok((parsed, duplicates)), Ok(plain)) => {
            assert_eq!(
                duplicates, plain.duplicate_keys,
                "the same repeated keys, in the same order"
            );
            let Parsed::Tree(tree) = parsed.clone() else {
                panic!("a fresh parse is a tree");
            };
            assert_eq!(
                tree.to_string(),
                plain.value.to_string(),
                "the tree writes the value's text, keys in order"
            );
            let mut made = parsed;
            assert_eq!(
                made.value(),
                &plain.value,
                "the value made of the tree is the value the views read"
            );
            let record = RawRecord {
                seq: 0,
                line: 1,
                byte_start: 0,
                byte_len: data.len() as u64,
                bytes: data.to_vec(),
            };
            let from_tree = Reader::default().read(&record, Some(&tree));
            let from_value = Reader::default().read(&record, Some(&plain.value));
            assert_eq!(
                from_tree, from_value,
                "the iterate reader reads the same columns and diagnostics from either"
            );
            let borrowed = event::parse(0, 1, &tree);
            assert_eq!(
                borrowed,
                event::parse(0, 1, &plain.value),
                "the iterate event parsed from the tree is the one parsed from the value"
            );
            assert_eq!(
                event::parse_tree(0, 1, tree),
                borrowed,
                "moving the content out of the tree changes nothing"
            );
        }
        (Ok(_), Err(err)) => panic!("the tree accepts a record the value refuses ({err})"),
        (Err(err), Ok(_)) => panic!("the tree refuses a record the value accepts ({err})"),
    }
});
