//! The tests of `decoder`.

use super::*;
use serde_json::json;

fn snapshot_envelope() -> Value {
    json!({
        "protocol": PROTOCOL, "version": 1, "eventId": "e1", "sessionId": "s1",
        "turnId": "t1", "sequence": 0, "emittedAt": "2026-07-11T10:00:00.000Z",
        "event": SNAPSHOT,
        "payload": {
            "messages": [{"id": "m1", "role": "user", "content": "hi",
                          "status": "complete", "createdAt": "2026-07-11T10:00:00.000Z"}],
            "status": "streaming",
            "usage": {"promptTokens": 1, "completionTokens": 0, "totalTokens": 1}
        }
    })
}

fn code_of(value: &Value) -> Option<ProtocolCode> {
    decode(Some(value)).err().map(|e| e.code)
}

#[test]
fn a_complete_snapshot_decodes() {
    let decoded = decode(Some(&snapshot_envelope()));
    assert!(
        matches!(
            decoded,
            Ok(TurnEvent {
                body: TurnBody::Snapshot(_),
                sequence: 0,
                ..
            })
        ),
        "a well-formed snapshot must decode: {decoded:?}"
    );
}

#[test]
fn unknown_fields_are_tolerated() {
    let mut value = snapshot_envelope();
    value["extra"] = json!({"anything": true});
    value["payload"]["future"] = json!(1);
    value["payload"]["messages"][0]["reactions"] = json!([]);
    assert_eq!(
        code_of(&value),
        None,
        "unknown fields must not make a line malformed"
    );
}

#[test]
fn version_is_checked_before_event_and_payload() {
    let mut value = snapshot_envelope();
    value["version"] = json!(2);
    value["event"] = json!("server.turn.delta");
    value["payload"] = json!(null);
    assert_eq!(
        code_of(&value),
        Some(ProtocolCode::UnsupportedVersion),
        "a foreign version wins over every other defect, as in the protocol's decoder"
    );
}

#[test]
fn event_kind_is_checked_before_payload() {
    let mut value = snapshot_envelope();
    value["event"] = json!("server.turn.delta");
    value["payload"] = json!(null);
    assert_eq!(
        code_of(&value),
        Some(ProtocolCode::UnknownEvent),
        "an unknown event kind wins over a broken payload"
    );
}

#[test]
fn a_string_version_is_an_invalid_payload_not_a_version_error() {
    let mut value = snapshot_envelope();
    value["version"] = json!("2");
    assert_eq!(
        code_of(&value),
        Some(ProtocolCode::InvalidPayload),
        "only a numeric version can be unsupported"
    );
}

#[test]
fn invalid_json_is_an_invalid_payload() {
    assert_eq!(
        decode(None).err().map(|e| e.code),
        Some(ProtocolCode::InvalidPayload),
        "the protocol reports unparseable lines as invalid payloads"
    );
}

#[test]
fn field_rules_reject_what_the_protocol_rejects() {
    let cases: &[(&str, Value)] = &[
        ("/sequence", json!(-1)),
        ("/sequence", json!(1.5)),
        ("/sequence", json!("3")),
        ("/sessionId", json!("-bad")),
        ("/turnId", json!("")),
        ("/eventId", json!("a b")),
        ("/emittedAt", json!("yesterday")),
        ("/emittedAt", json!("2026-02-30T10:00:00Z")),
        ("/emittedAt", json!("2026-07-11T10:00:00")),
        ("/payload/status", json!("thinking")),
        ("/payload/usage/totalTokens", json!(-3)),
        ("/payload/usage", json!(null)),
        ("/payload/messages/0/role", json!("robot")),
        (
            "/payload/messages/0/createdAt",
            json!("2026-07-11T10:00:00Z"),
        ),
        ("/payload/messages", json!({})),
        (
            "/payload/lineage",
            json!({"operation": "retry", "parentTurnId": "t0"}),
        ),
        (
            "/payload/lineage",
            json!({"operation": "edit", "sourceMessageId": "m1"}),
        ),
        ("/payload/lineage", json!({"operation": "fork"})),
        (
            "/payload/error",
            json!({"version": 1, "code": "bad code", "message": "x", "retryable": false}),
        ),
        ("/protocol", json!("agentskit.chat.component")),
    ];
    for (pointer, bad) in cases {
        let mut value = snapshot_envelope();
        match value.pointer_mut(pointer) {
            Some(slot) => *slot = bad.clone(),
            None => {
                let (parent, field) = pointer.rsplit_once('/').unwrap_or(("", pointer));
                value.pointer_mut(parent).unwrap()[field] = bad.clone();
            }
        }
        assert_eq!(
            code_of(&value),
            Some(ProtocolCode::InvalidPayload),
            "{pointer} = {bad} must make the snapshot an invalid payload"
        );
    }
}

#[test]
fn a_submit_lineage_drops_stray_ancestry() {
    let mut value = snapshot_envelope();
    value["payload"]["lineage"] = json!({"operation": "submit", "parentTurnId": "t0"});
    let Ok(TurnEvent {
        body: TurnBody::Snapshot(snapshot),
        ..
    }) = decode(Some(&value))
    else {
        panic!("a submit lineage with extra fields must decode");
    };
    assert_eq!(
        snapshot.lineage,
        Some(Lineage {
            operation: Operation::Submit,
            parent_turn_id: None,
            source_message_id: None
        }),
        "a submit has no ancestry even when the writer sent some"
    );
}

#[test]
fn identifiers_follow_the_protocol_pattern() {
    assert!(is_identifier("a"), "one alphanumeric is enough");
    assert!(
        is_identifier("turn-1.retry:2_b"),
        "dots, colons, dashes and underscores follow"
    );
    assert!(
        is_identifier(&"a".repeat(128)),
        "128 characters is the maximum"
    );
    assert!(
        !is_identifier(&"a".repeat(129)),
        "129 characters is too long"
    );
    assert!(
        !is_identifier("_a"),
        "the first character must be alphanumeric"
    );
    assert!(!is_identifier("é"), "only ASCII is allowed");
    assert!(!is_identifier(""), "empty is not an identifier");
}

#[test]
fn datetimes_accept_offsets_and_fractions() {
    for ok in [
        "2026-07-11T10:00:00Z",
        "2026-07-11T10:00:00.123456Z",
        "2026-07-11T10:00Z",
        "2026-07-11T10:00:00+02:00",
        "2026-07-11T10:00:00-0530",
        "2024-02-29T23:59:59Z",
    ] {
        assert!(is_iso_datetime(ok), "{ok} is an ISO-8601 date-time");
    }
    for bad in [
        "2026-07-11 10:00:00Z",
        "2026-07-11T24:00:00Z",
        "2025-02-29T10:00:00Z",
        "2026-07-11T10:00:00.Z",
        "2026-07-11T10:00:00+2:00",
        "2026-07-11",
    ] {
        assert!(!is_iso_datetime(bad), "{bad} is not an accepted date-time");
    }
    assert!(
        is_canonical_instant("2026-07-11T10:00:00.000Z"),
        "the canonical form passes"
    );
    assert!(
        !is_canonical_instant("2026-07-11T10:00:00Z"),
        "a message time needs milliseconds"
    );
}
