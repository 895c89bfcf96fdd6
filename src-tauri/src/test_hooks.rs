//! What the end-to-end tests can do that WebDriver cannot: drag a file onto the window.
//! WebDriver cannot synthesise an OS drag of a file, so the tests ask the backend to emit the
//! very events Tauri emits for a real drag (`tauri://drag-enter`, `tauri://drag-drop`,
//! `tauri://drag-leave`: same names, payload shape and webview target). Everything after the
//! event (the UI's drop handler, the open, the recent list) is the production path. The hook
//! answers `disabled` unless the process was started with `JOURNALSCOPE_TEST_HOOKS=1`, which
//! only the e2e harness sets.

use serde::Serialize;
use tauri::{AppHandle, Emitter, EventTarget};

use crate::ipc::IpcError;

/// Environment variable that enables the hooks; read when a hook is called.
pub const TEST_HOOKS_ENV: &str = "JOURNALSCOPE_TEST_HOOKS";

/// Tauri's own drag-and-drop event names (tauri/src/manager/window.rs); the UI listens to them
/// through `getCurrentWebview().onDragDropEvent`.
const DRAG_ENTER: &str = "tauri://drag-enter";
const DRAG_DROP: &str = "tauri://drag-drop";
const DRAG_LEAVE: &str = "tauri://drag-leave";

#[derive(Clone, Serialize)]
struct Position {
    x: f64,
    y: f64,
}

/// The payload Tauri's runtime sends for a drop (`DragDropPayload`).
#[derive(Clone, Serialize)]
struct DropPayload {
    paths: Vec<String>,
    position: Position,
}

pub fn enabled() -> bool {
    std::env::var(TEST_HOOKS_ENV).is_ok_and(|v| v == "1")
}

/// Why a hook is refused: always, unless the process was started with the hooks on.
fn refusal() -> Option<IpcError> {
    (!enabled()).then(|| {
        IpcError::new(
            "disabled",
            format!("test hooks are off (set {TEST_HOOKS_ENV}=1)"),
        )
    })
}

/// One step of a drag over the main webview, as Tauri's runtime reports it.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DragStage {
    Enter,
    Drop,
    Leave,
}

/// Emits what a real drag of `paths` onto the window emits at `stage`.
#[tauri::command]
pub fn simulate_drag(app: AppHandle, paths: Vec<String>, stage: DragStage) -> Result<(), IpcError> {
    if let Some(refused) = refusal() {
        return Err(refused);
    }
    let target = EventTarget::webview("main");
    let payload = DropPayload {
        paths,
        position: Position { x: 400.0, y: 300.0 },
    };
    let sent = match stage {
        DragStage::Enter => app.emit_to(target, DRAG_ENTER, payload),
        DragStage::Drop => app.emit_to(target, DRAG_DROP, payload),
        // A real leave carries no payload.
        DragStage::Leave => app.emit_to(target, DRAG_LEAVE, ()),
    };
    sent.map_err(|e| IpcError::new("internal", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_no_hooks_variable_when_a_hook_is_called_then_it_is_refused() {
        // The capability grants simulate_drag to the window; this is what keeps it inert.
        assert!(
            std::env::var_os(TEST_HOOKS_ENV).is_none(),
            "the unit tests run without the hooks variable"
        );
        let refused = refusal().expect("a hook is refused without the variable");
        assert_eq!(
            refused.code, "disabled",
            "the refusal says the hooks are off"
        );
    }
}
