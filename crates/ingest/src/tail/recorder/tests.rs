//! The tests of `recorder`.

use super::*;

fn recorder() -> StreamRecorder {
    let store = Store::in_memory().expect("in-memory store");
    StreamRecorder::open(store, "http://h/s".to_string(), Transport::Sse, None)
        .expect("open recorder")
}

fn event(offset: i64, text: &str) -> Vec<u8> {
    format!(r#"{{"offset":{offset},"type":"x","payload":{{"t":"{text}"}}}}"#).into_bytes()
}

fn offsets(rec: &StreamRecorder) -> Vec<Vec<Option<i64>>> {
    let mut stmt = rec
        .store
        .inspection_connection()
        .prepare("SELECT id FROM journals ORDER BY id")
        .expect("query");
    let ids: Vec<i64> = stmt
        .query_map([], |r| r.get(0))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("ids");
    ids.iter()
        .map(|id| {
            rec.store
                .events(*id)
                .expect("events")
                .iter()
                .map(|e| e.offset)
                .collect()
        })
        .collect()
}

#[test]
fn given_a_redelivered_event_when_received_then_it_lands_once() {
    // Given a stream that delivered offsets 1 and 2
    let mut rec = recorder();
    let mut updates = Vec::new();
    rec.receive(event(1, "a")).expect("receive");
    rec.receive(event(2, "b")).expect("receive");
    rec.flush(&mut updates).expect("flush");
    // When offset 2 comes again (stored) and 3 twice (queued)
    rec.receive(event(2, "b")).expect("receive");
    rec.receive(event(3, "c")).expect("receive");
    rec.receive(event(3, "c")).expect("receive");
    rec.flush(&mut updates).expect("flush");
    // Then each offset is stored once
    assert_eq!(
        offsets(&rec),
        vec![vec![Some(1), Some(2), Some(3)]],
        "no event twice"
    );
    assert_eq!(rec.duplicates(), 2, "both redeliveries were counted");
}

#[test]
fn given_offsets_that_start_over_when_received_then_a_new_generation_starts() {
    let mut rec = recorder();
    let mut updates = Vec::new();
    for (o, t) in [(1, "a"), (2, "b"), (3, "c")] {
        rec.receive(event(o, t)).expect("receive");
    }
    rec.flush(&mut updates).expect("flush");
    // When offset 1 comes back with other content
    rec.receive(event(1, "new")).expect("receive");
    rec.receive(event(2, "new2")).expect("receive");
    rec.flush(&mut updates).expect("flush");
    // Then the old generation is kept whole and the new one holds the restart
    assert_eq!(
        offsets(&rec),
        vec![vec![Some(1), Some(2), Some(3)], vec![Some(1), Some(2)]],
        "a restarted stream is never merged into the old one"
    );
    assert!(
        updates.iter().any(|u| matches!(
            u,
            TailUpdate::Generation {
                reason: GenerationReason::OffsetsRestarted,
                ..
            }
        )),
        "the restart is reported"
    );
}

#[test]
fn given_wrapped_deliveries_when_the_stream_id_changes_then_a_new_generation_starts() {
    let mut rec = recorder();
    let mut updates = Vec::new();
    let wrap = |id: &str, o: i64, t: &str| {
        let inner = String::from_utf8(event(o, t)).expect("utf8");
        format!(r#"{{"streamId":"{id}","path":"/a","event":{inner}}}"#).into_bytes()
    };
    rec.receive(wrap("s1", 1, "a")).expect("receive");
    rec.receive(wrap("s1", 1, "a")).expect("receive");
    rec.receive(wrap("s1", 2, "b")).expect("receive");
    rec.receive(wrap("s2", 5, "x")).expect("receive");
    rec.flush(&mut updates).expect("flush");
    assert_eq!(
        offsets(&rec),
        vec![vec![Some(1), Some(2)], vec![Some(5)]],
        "dedup on (streamId, offset); a new stream id is a new generation"
    );
    let first = rec.store.events(1).expect("events");
    assert_eq!(
        first[0].raw,
        event(1, "a"),
        "the wrapper is unwrapped to the event's bytes"
    );
    let stream: String = rec
        .store
        .inspection_connection()
        .query_row(
            "SELECT stream_id FROM streams WHERE journal_id = 2",
            [],
            |r| r.get(0),
        )
        .expect("stream row");
    assert_eq!(stream, "s2", "the new generation records its stream id");
    let first: String = rec
        .store
        .inspection_connection()
        .query_row(
            "SELECT stream_id FROM streams WHERE journal_id = 1",
            [],
            |r| r.get(0),
        )
        .expect("stream row");
    assert_eq!(
        first, "s1",
        "the first generation records its stream id too"
    );
}

proptest::proptest! {
    /// However connections rewind and redeliver, every event lands exactly once.
    #[test]
    fn redelivered_prefixes_never_duplicate_or_lose(
        gaps in proptest::collection::vec(1i64..4, 1..40),
        connections in proptest::collection::vec((0usize..8, 0usize..12, proptest::bool::ANY), 0..12),
    ) {
        let mut offset = 0;
        let events: Vec<Vec<u8>> = gaps
            .iter()
            .map(|gap| {
                offset += gap;
                event(offset, &format!("e{offset}"))
            })
            .collect();
        let mut rec = recorder();
        let mut received = 0usize;
        for (rewind, advance, flush) in connections {
            let from = received.saturating_sub(rewind);
            let to = (received + advance).min(events.len());
            for data in &events[from..to.max(from)] {
                rec.receive(data.clone()).expect("receive");
            }
            received = received.max(to);
            if flush {
                rec.flush(&mut Vec::new()).expect("flush");
            }
        }
        for data in &events[received.saturating_sub(3)..] {
            rec.receive(data.clone()).expect("receive");
        }
        rec.flush(&mut Vec::new()).expect("flush");
        let stored: Vec<Vec<u8>> = rec.store.events(1).expect("events").into_iter().map(|e| e.raw).collect();
        proptest::prop_assert_eq!(stored, events, "each event once, in order");
        let journals: i64 = rec.store.inspection_connection()
            .query_row("SELECT count(*) FROM journals", [], |r| r.get(0))
            .expect("count");
        proptest::prop_assert_eq!(journals, 1, "redelivery never starts a generation");
    }
}

#[test]
fn given_a_gap_in_offsets_when_received_then_it_is_reported_not_refused() {
    let mut rec = recorder();
    let mut updates = Vec::new();
    rec.receive(event(1, "a")).expect("receive");
    rec.receive(event(4, "b")).expect("receive");
    rec.flush(&mut updates).expect("flush");
    assert!(
        updates.contains(&TailUpdate::Gap { after: 1, next: 4 }),
        "the gap is shown"
    );
    assert_eq!(
        offsets(&rec),
        vec![vec![Some(1), Some(4)]],
        "both events land"
    );
}

#[test]
fn given_a_stored_stream_when_reopened_then_it_resumes_after_the_last_offset() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("db.sqlite");
    {
        let store = Store::open(&path).expect("store");
        let mut rec =
            StreamRecorder::open(store, "u".into(), Transport::Ndjson, None).expect("recorder");
        rec.receive(event(7, "a")).expect("receive");
        rec.flush(&mut Vec::new()).expect("flush");
    }
    let store = Store::open(&path).expect("store");
    let mut rec =
        StreamRecorder::open(store, "u".into(), Transport::Ndjson, None).expect("recorder");
    assert_eq!(
        rec.last_offset(),
        Some(7),
        "resume point survives a restart"
    );
    rec.receive(event(7, "a")).expect("receive");
    rec.receive(event(8, "b")).expect("receive");
    rec.flush(&mut Vec::new()).expect("flush");
    assert_eq!(
        offsets(&rec),
        vec![vec![Some(7), Some(8)]],
        "appended to the same journal"
    );
}

#[test]
fn given_a_long_stream_recorded_in_two_sittings_when_resumed_then_its_hash_is_of_every_record_laid_out(
) {
    // Protects the resume: it rebuilds the stream's ends from the records at either end
    // instead of hashing every record again, and must keep the hash one sitting keeps.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("db.sqlite");
    let text = "x".repeat(300);
    let mut laid_out = Vec::new();
    for sitting in 0..2 {
        let store = Store::open(&path).expect("store");
        let mut rec =
            StreamRecorder::open(store, "u".into(), Transport::Ndjson, None).expect("recorder");
        for n in 0..600 {
            let offset = sitting * 600 + n + 1;
            let bytes = event(offset, &text);
            laid_out.extend_from_slice(&bytes);
            laid_out.push(b'\n');
            rec.receive(bytes).expect("receive");
        }
        rec.flush(&mut Vec::new()).expect("flush");
        let row = rec.store.latest_journal().expect("row").expect("a journal");
        assert_eq!(
            row.content_hash,
            journalscope_shapes::source_ends::SourceEnds::whole(&laid_out)
                .hash_at(laid_out.len() as u64),
            "after sitting {sitting}, the hash of the records as one file"
        );
    }
}
