//! Properties of the snapshot cursor over arbitrary deliveries: the held sequence never goes
//! backward, only the followed session is ever accepted, and each verdict follows from the
//! highest sequence seen so far; and the views read from the database (the analysis's marks, or
//! a fold slice by slice for another session) are the plain fold's: the snapshot at every
//! offset, and the turns across any seams between slices.

use crate::support::agentskit_lines;
use crate::support::importing;

use agentskit_lines::{journal, snapshot, submit};
use journalscope_agentskit::agentskit::{
    state_at, state_at_stored, turns, turns_in_slices, Verdict,
};
use proptest::prelude::*;
use serde_json::Value;

#[derive(Debug, Clone)]
enum Delivery {
    Snapshot {
        session: &'static str,
        sequence: u64,
    },
    Submit {
        session: &'static str,
        sequence: u64,
    },
    Broken {
        sequence: u64,
    },
}

fn delivery() -> impl Strategy<Value = Delivery> {
    let session = prop_oneof![Just("a"), Just("b")];
    prop_oneof![
        6 => (session.clone(), 0u64..8).prop_map(|(session, sequence)| Delivery::Snapshot { session, sequence }),
        1 => (session, 0u64..8).prop_map(|(session, sequence)| Delivery::Submit { session, sequence }),
        1 => (0u64..8).prop_map(|sequence| Delivery::Broken { sequence }),
    ]
}

fn envelope(delivery: &Delivery) -> Value {
    match delivery {
        Delivery::Snapshot { session, sequence } => snapshot(session, "t1", *sequence),
        Delivery::Submit { session, sequence } => submit(session, "t1", *sequence),
        Delivery::Broken { sequence } => {
            let mut value = snapshot("a", "t1", *sequence);
            value["payload"]["status"] = Value::from("unknown");
            value
        }
    }
}

proptest! {
    #[test]
    fn verdicts_follow_the_highest_sequence_of_the_followed_session(
        deliveries in prop::collection::vec(delivery(), 1..24),
        follow_b in any::<bool>(),
    ) {
        let events = journal(&deliveries.iter().map(envelope).collect::<Vec<_>>());
        let followed = if follow_b { "b" } else { "a" };
        let report = turns(&events, Some(followed));
        let mut highest: Option<u64> = None;
        let mut held_before = None;
        for (index, (d, line)) in deliveries.iter().zip(&report.lines).enumerate() {
            let expected = match d {
                Delivery::Broken { .. } => Verdict::Malformed,
                Delivery::Submit { .. } => Verdict::NotASnapshot,
                Delivery::Snapshot { session, .. } if *session != followed => Verdict::ForeignSession,
                Delivery::Snapshot { sequence, .. } => match highest {
                    Some(h) if *sequence == h => Verdict::Duplicate,
                    Some(h) if *sequence < h => Verdict::Stale,
                    _ => {
                        highest = Some(*sequence);
                        Verdict::Accepted
                    }
                },
            };
            prop_assert_eq!(line.verdict, expected, "line {} verdict follows the highest sequence so far", index + 1);
            let held = state_at(&events, index as i64 + 1, Some(followed)).sequence;
            prop_assert_eq!(held, highest, "the held sequence is the highest accepted so far");
            prop_assert!(held >= held_before, "the held sequence never goes backward");
            held_before = held;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_view_from_the_store_is_the_plain_folds_at_every_offset_for_every_session(
        deliveries in prop::collection::vec(delivery(), 1..24),
        junk_at in 0usize..24,
    ) {
        let mut lines: Vec<String> = deliveries.iter().map(|d| envelope(d).to_string()).collect();
        // A line that is not JSON at all among the envelopes.
        lines.insert(junk_at.min(lines.len()), "not json".to_string());
        let dir = tempfile::tempdir().expect("temp dir");
        let (store, id) = importing::import_lines(dir.path(), &lines);
        let events = store.events(id).expect("events");
        for session in [None, Some("a"), Some("b"), Some("nobody")] {
            for slice in [1, 2, 5, 4_096] {
                let stored = turns_in_slices(&store, id, session, slice).expect("stored turns");
                prop_assert_eq!(
                    &stored,
                    &turns(&events, session),
                    "for {:?}, {} records a slice: the stored turns are the fold's", session, slice
                );
            }
        }
        for at in 0..=events.len() as i64 + 1 {
            for session in [None, Some("a"), Some("b"), Some("nobody")] {
                let stored = state_at_stored(&store, id, at, session).expect("stored view");
                prop_assert_eq!(
                    &stored,
                    &state_at(&events, at, session),
                    "at {} for {:?}: the stored view is the fold's", at, session
                );
            }
        }
    }
}
