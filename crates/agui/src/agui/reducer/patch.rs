//! JSON Patch (RFC 6902) as a `STATE_DELTA` applies it: what makes a patch no patch at all,
//! the depth a patched state may reach, and the application itself, atomic and in place where
//! one operation allows.

use super::*;

/// Why a patch is not even a patch: not an array of operation objects with a valid `op` and
/// a `path` that is a JSON Pointer. Such a patch stops a consumer.
pub(super) fn malformed(patch: &Value) -> Option<String> {
    let Some(ops) = patch.as_array() else {
        return Some(format!("the patch is {}, not an array", type_name(patch)));
    };
    for (index, op) in ops.iter().enumerate() {
        let Some(object) = op.as_object() else {
            return Some(format!(
                "operation {index} is {}, not an object",
                type_name(op)
            ));
        };
        match object.field("op").and_then(Value::as_str) {
            Some(name) if PATCH_OPS.contains(&name) => {}
            Some(name) => return Some(format!("operation {index} has unknown op {name:?}")),
            None => return Some(format!("operation {index} has no string `op`")),
        }
        match object.field("path").and_then(Value::as_str) {
            Some(path) if path.is_empty() || path.starts_with('/') => {}
            Some(path) => {
                return Some(format!(
                    "operation {index} has path {path:?}, not a JSON Pointer"
                ))
            }
            None => return Some(format!("operation {index} has no string `path`")),
        }
    }
    None
}

/// The deepest state a patch may build. Each event is parsed with a nesting limit, but patches
/// (a `copy` of the whole state under itself, repeated) could otherwise grow a state deep
/// enough to exhaust the stack when it is rendered, serialised or dropped.
pub const MAX_STATE_DEPTH: usize = 512;

/// Nesting depth of a value (a scalar is 1), measured without recursion.
pub(super) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 1usize)];
    while let Some((value, level)) = pending.pop() {
        deepest = deepest.max(level);
        match value {
            Value::Array(items) => pending.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(fields) => pending.extend(fields.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}

/// Applies an RFC 6902 patch atomically: the document is only replaced when every operation
/// applies. The error names the operation index and its path.
pub fn apply_patch(doc: &Value, patch: &Value) -> Result<Value, String> {
    let ops = patch.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut parsed = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        match serde_json::from_value::<json_patch::PatchOperation>(op.clone()) {
            Ok(op) => parsed.push(op),
            Err(error) => {
                let path = op.field("path").and_then(Value::as_str).unwrap_or("");
                return Err(format!("operation {index} at {path:?}: {error}"));
            }
        }
    }
    let mut next = doc.clone();
    // The work happens on a copy, so the unsafe (non-reverting) variant is atomic here and
    // cannot hit the crate's panic on a failed revert.
    match json_patch::patch_unsafe(&mut next, &parsed) {
        Ok(()) if depth(&next) > MAX_STATE_DEPTH => Err(format!(
            "the patched state would nest deeper than {MAX_STATE_DEPTH} levels"
        )),
        Ok(()) => Ok(next),
        Err(error) => Err(format!(
            "operation {} at {:?}: {}",
            error.operation,
            error.path.as_str(),
            error.kind
        )),
    }
}

/// [`apply_patch`] on `doc` itself. A patch of one operation (what a stream sends to move a
/// counter or append to a list) is applied in place, since a single operation fails before it
/// changes anything; copying the state for each delta made a thread whose state grows fold in
/// time growing with the square of its length. Longer patches work on a copy, for atomicity.
pub fn patch_in_place(doc: &mut Value, patch: &Value) -> Result<(), String> {
    use json_patch::PatchOperation;
    let single = match patch.as_array().map(Vec::as_slice) {
        Some([op]) => serde_json::from_value::<PatchOperation>(op.clone()).ok(),
        _ => None,
    };
    let Some(op) = single.filter(|op| !matches!(op, PatchOperation::Move(_))) else {
        *doc = apply_patch(doc, patch)?;
        return Ok(());
    };
    // Where the operation puts a value, and how deep that value is: the state was within the
    // limit before, so only the placed value can take it past.
    let placed = match &op {
        PatchOperation::Add(add) => Some((add.path.count(), depth(&add.value))),
        PatchOperation::Replace(replace) => Some((replace.path.count(), depth(&replace.value))),
        PatchOperation::Copy(copy) => doc
            .pointer(copy.from.as_str())
            .map(|value| (copy.path.count(), depth(value))),
        _ => None,
    };
    if placed.is_some_and(|(segments, levels)| segments + levels > MAX_STATE_DEPTH) {
        return Err(format!(
            "the patched state would nest deeper than {MAX_STATE_DEPTH} levels"
        ));
    }
    json_patch::patch_unsafe(doc, std::slice::from_ref(&op)).map_err(|error| {
        format!(
            "operation {} at {:?}: {}",
            error.operation,
            error.path.as_str(),
            error.kind
        )
    })
}
