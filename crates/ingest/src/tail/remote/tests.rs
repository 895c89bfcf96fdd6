//! The tests of `remote`.

use super::*;

#[test]
fn given_a_paused_board_when_events_land_then_it_counts_those_the_view_lacks() {
    let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = std::sync::Arc::clone(&shown);
    let mut board = Board::new(Box::new(move |u| {
        if let Ok(mut v) = into.lock() {
            v.push(u);
        }
    }));
    board.set(TailStatus::Live {
        events_per_second: 0.0,
        events: 10,
    });
    board.set_paused(true, 10);
    board.set_paused(true, 15);
    assert_eq!(board.behind, 5, "five stored since the pause");
    board.set_paused(false, 15);
    assert_eq!(board.behind, 0, "nothing behind once resumed");
    let shown = shown.lock().map(|v| v.clone()).unwrap_or_default();
    assert!(
        shown.iter().any(|u| matches!(
            u,
            TailUpdate::Status {
                status: TailStatus::Paused { behind: 0 }
            }
        )),
        "the pause itself is shown at once: {shown:?}"
    );
}

#[test]
fn ndjson_keeps_a_cut_line_for_the_next_chunk() {
    let mut buffer = b"{\"a\":1}\r\n\n{\"b\"".to_vec();
    let frames = ndjson_events(&mut buffer);
    assert_eq!(
        frames.events,
        vec![b"{\"a\":1}".to_vec()],
        "only whole lines are events"
    );
    assert_eq!(buffer, b"{\"b\"", "the partial line waits");
}

#[test]
fn sse_takes_ids_retry_and_skips_empty_frames() {
    let mut buffer =
        b"retry: 50\nid: 3\ndata: {\"o\":3}\n\n: ping\n\ndata:\n\nid: 4\ndata: {\"o\"".to_vec();
    let frames = sse_events(&mut buffer);
    assert_eq!(
        frames.events,
        vec![b"{\"o\":3}".to_vec()],
        "one whole event"
    );
    assert_eq!(
        frames.last_id.as_deref(),
        Some("3"),
        "the last dispatched id"
    );
    assert_eq!(
        frames.retry,
        Some(Duration::from_millis(50)),
        "retry is honoured"
    );
    assert_eq!(buffer, b"id: 4\ndata: {\"o\"", "the cut frame waits");
}

#[test]
fn content_types_choose_the_transport() {
    assert_eq!(
        transport_of("text/event-stream; charset=utf-8"),
        Some(Transport::Sse),
        "SSE"
    );
    assert_eq!(
        transport_of("application/x-ndjson"),
        Some(Transport::Ndjson),
        "NDJSON"
    );
    assert_eq!(
        transport_of("text/html"),
        None,
        "a web page is not a stream"
    );
}
