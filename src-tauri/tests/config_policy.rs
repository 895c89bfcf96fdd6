//! The window's security policy, read from the configuration the app is built with: the CSP in
//! tauri.conf.json, the capabilities (as written and as tauri-build resolved them under
//! gen/schemas), the commands registered in src/lib.rs and granted in build.rs, and the
//! plugins the shell and the UI depend on. Anything broader than what the UI uses fails here.
//! A journal is untrusted input rendered in that window: these are the walls around it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// Plugin and core permissions the UI really uses (see ui/src/lib/backend.ts): `listen` for
/// progress, live status and file drops; the open dialog; writing the clipboard.
const PLATFORM_PERMISSIONS: &[&str] = &[
    "core:event:allow-listen",
    "core:event:allow-unlisten",
    "dialog:allow-open",
    "clipboard-manager:allow-write-text",
];

/// Plugins whose mere presence widens what a compromised page could do.
const FORBIDDEN_PLUGINS: &[&str] = &[
    "shell",
    "fs",
    "http",
    "process",
    "opener",
    "updater",
    "websocket",
    "upload",
    "sql",
    "store",
    "global-shortcut",
];

/// The only sources that are not the app itself: Tauri's IPC endpoints.
const ALLOWED_NON_SELF: &[(&str, &str)] = &[
    ("connect-src", "ipc:"),
    ("connect-src", "http://ipc.localhost"),
];

fn csp() -> BTreeMap<String, Vec<String>> {
    let conf = read_json(&manifest_dir().join("tauri.conf.json"));
    let csp = &conf["app"]["security"]["csp"];
    let mut directives = BTreeMap::new();
    match csp {
        Value::Object(map) => {
            for (name, value) in map {
                let sources = match value {
                    Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
                    Value::Array(items) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    other => panic!("CSP directive {name} is neither text nor a list: {other}"),
                };
                directives.insert(name.to_ascii_lowercase(), sources);
            }
        }
        Value::String(text) => {
            for directive in text.split(';').map(str::trim).filter(|d| !d.is_empty()) {
                let mut words = directive.split_whitespace();
                let name = words.next().unwrap_or_default().to_ascii_lowercase();
                directives.insert(name, words.map(str::to_string).collect());
            }
        }
        other => panic!("the app has no CSP (app.security.csp is {other})"),
    }
    directives
}

#[test]
fn csp_has_a_default_and_no_inline_or_eval_script() {
    let csp = csp();
    assert!(
        csp.get("default-src").is_some_and(|s| !s.is_empty()),
        "default-src must be set, so a directive left out falls back to it: {csp:?}"
    );
    let script = csp
        .get("script-src")
        .or_else(|| csp.get("default-src"))
        .cloned()
        .unwrap_or_default();
    for bad in [
        "'unsafe-inline'",
        "'unsafe-eval'",
        "'unsafe-hashes'",
        "'wasm-unsafe-eval'",
        "data:",
        "blob:",
        "*",
    ] {
        assert!(
            !script.iter().any(|s| s.eq_ignore_ascii_case(bad)),
            "script-src allows {bad}: markup from a journal could run"
        );
    }
    assert!(
        !csp.get("style-src")
            .is_some_and(|s| s.iter().any(|x| x.eq_ignore_ascii_case("'unsafe-inline'"))),
        "style-src allows 'unsafe-inline': injected style attributes could restyle the window"
    );
    for (name, want) in [
        ("object-src", "'none'"),
        ("base-uri", "'none'"),
        ("form-action", "'none'"),
        ("frame-src", "'none'"),
    ] {
        assert_eq!(
            csp.get(name).map(|s| s.join(" ")),
            Some(want.to_string()),
            "{name} must be {want}: no plugins, no <base> hijack, no form posts, no frames"
        );
    }
}

#[test]
fn csp_allows_no_remote_origin() {
    for (directive, sources) in csp() {
        for source in sources {
            let lower = source.to_ascii_lowercase();
            if lower.starts_with('\'') {
                continue;
            }
            if directive == "img-src" && lower == "data:" {
                continue;
            }
            let allowed = ALLOWED_NON_SELF
                .iter()
                .any(|(d, s)| *d == directive && s.eq_ignore_ascii_case(&lower));
            assert!(
                allowed,
                "{directive} allows {source}: the window must load and talk to nothing but itself and its IPC"
            );
        }
    }
}

#[test]
fn tauri_config_keeps_the_dangerous_switches_off() {
    let conf = read_json(&manifest_dir().join("tauri.conf.json"));
    let security = &conf["app"]["security"];
    assert_eq!(
        security["freezePrototype"],
        Value::Bool(true),
        "freezePrototype keeps page scripts from patching Object.prototype under the IPC"
    );
    for switch in [
        "dangerousDisableAssetCspModification",
        "dangerousRemoteDomainIpcAccess",
    ] {
        assert!(
            security
                .get(switch)
                .is_none_or(|v| v == &Value::Bool(false)),
            "{switch} must stay off"
        );
    }
    assert!(
        security["assetProtocol"]["enable"] != Value::Bool(true),
        "the asset protocol would serve local files to the page"
    );
    assert!(
        conf["app"]["withGlobalTauri"] != Value::Bool(true),
        "window.__TAURI__ would hand every script the whole API"
    );
    assert!(
        security.get("capabilities").is_none(),
        "capabilities live in capabilities/*.json, where this test reads them"
    );
    for window in conf["app"]["windows"].as_array().into_iter().flatten() {
        let url = window["url"].as_str().unwrap_or("index.html");
        assert!(
            !url.contains("://"),
            "window {} loads {url}: only the bundled UI",
            window["label"]
        );
    }
}

/// `module::command` entries of `generate_handler![...]` in src/lib.rs.
/// Commands only the end-to-end tests call (what WebDriver cannot do, such as dropping a file
/// on the window). Each refuses unless the app was started with JOURNALSCOPE_TEST_HOOKS=1; the
/// unit tests of src-tauri/src/test_hooks.rs hold that.
const TEST_HOOK_COMMANDS: &[&str] = &["simulate_drag"];

fn registered_commands() -> BTreeSet<String> {
    let lib = read(&manifest_dir().join("src/lib.rs"));
    let start = lib
        .find("generate_handler![")
        .expect("src/lib.rs registers its commands with generate_handler!");
    let body = &lib[start + "generate_handler![".len()..];
    let body = &body[..body.find(']').expect("generate_handler! is closed")];
    body.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| e.rsplit("::").next().unwrap_or(e).to_string())
        .collect()
}

/// The names in build.rs's `COMMANDS`, which get `allow-<command>` permissions.
fn manifest_commands() -> BTreeSet<String> {
    let build = read(&manifest_dir().join("build.rs"));
    let start = build
        .find("const COMMANDS")
        .expect("build.rs lists the app's commands in COMMANDS");
    let body = &build[start..];
    let body = &body[body.find("= &[").expect("a list") + 4..body.find("];").expect("closed")];
    body.split(',')
        .map(|e| e.trim().trim_matches('"').to_string())
        .filter(|e| !e.is_empty())
        .collect()
}

/// Commands the UI invokes: `call<...>("name"` in ui/src/lib/backend.ts, the only importer
/// of the Tauri API.
fn ui_commands() -> BTreeSet<String> {
    let backend = read(&manifest_dir().join("../ui/src/lib/backend.ts"));
    let mut names = BTreeSet::new();
    for (i, _) in backend.match_indices("call<") {
        let rest = &backend[i..];
        let Some(open) = rest.find("(\"") else {
            continue;
        };
        let name = &rest[open + 2..];
        if let Some(end) = name.find('"') {
            names.insert(name[..end].to_string());
        }
    }
    names
}

fn allowed_permissions() -> BTreeSet<String> {
    PLATFORM_PERMISSIONS
        .iter()
        .map(|p| p.to_string())
        .chain(
            registered_commands()
                .iter()
                .map(|c| format!("allow-{}", c.replace('_', "-"))),
        )
        .collect()
}

fn capability_files() -> Vec<PathBuf> {
    let dir = manifest_dir().join("capabilities");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

fn check_capability(name: &str, capability: &Value) {
    assert!(
        capability.get("remote").is_none(),
        "{name}: a remote capability would hand the IPC to web origins"
    );
    assert_eq!(
        capability["windows"],
        serde_json::json!(["main"]),
        "{name}: the capability applies to the main window only"
    );
    assert!(
        capability
            .get("webviews")
            .is_none_or(|w| w == &serde_json::json!([])),
        "{name}: no other webview is granted anything"
    );
    let permissions = capability["permissions"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: a permissions list"));
    let mut granted = BTreeSet::new();
    for permission in permissions {
        let id = permission.as_str().unwrap_or_else(|| {
            panic!("{name}: {permission} is scoped; scoped grants need review here")
        });
        let plugin = id.split(':').next().unwrap_or(id);
        assert!(
            !FORBIDDEN_PLUGINS.contains(&plugin),
            "{name}: {id} grants the {plugin} plugin"
        );
        assert!(
            !id.ends_with(":default") && id != "default",
            "{name}: {id} is a default set: grant the permissions the UI uses by name"
        );
        assert!(
            granted.insert(id.to_string()),
            "{name}: {id} is granted twice"
        );
    }
    let allowed = allowed_permissions();
    let extra: Vec<_> = granted.difference(&allowed).collect();
    assert!(
        extra.is_empty(),
        "{name} grants more than the UI uses: {extra:?}"
    );
    let missing: Vec<_> = allowed.difference(&granted).collect();
    assert!(
        missing.is_empty(),
        "{name} does not grant what the UI needs (the window would be refused): {missing:?}"
    );
}

#[test]
fn capabilities_grant_exactly_what_the_ui_uses() {
    let files = capability_files();
    assert!(!files.is_empty(), "at least one capability file");
    for file in files {
        let name = file.display().to_string();
        assert!(
            file.extension().is_some_and(|e| e == "json"),
            "{name}: capabilities are JSON so this test reads them all"
        );
        check_capability(&name, &read_json(&file));
    }
}

#[test]
fn the_built_capabilities_are_the_ones_checked() {
    // tauri-build resolves capabilities into gen/schemas/capabilities.json when this crate is
    // built, which happened before this test could run.
    let built = manifest_dir().join("gen/schemas/capabilities.json");
    let resolved = read_json(&built);
    let map = resolved
        .as_object()
        .expect("capabilities.json maps identifiers to capabilities");
    assert_eq!(
        map.keys().collect::<Vec<_>>(),
        vec!["main"],
        "only the main capability is built in"
    );
    for (id, capability) in map {
        check_capability(&format!("built capability {id}"), capability);
    }
    let manifests = read_json(&manifest_dir().join("gen/schemas/acl-manifests.json"));
    for plugin in manifests.as_object().into_iter().flat_map(|m| m.keys()) {
        assert!(
            !FORBIDDEN_PLUGINS.contains(&plugin.as_str()),
            "the built ACL knows the {plugin} plugin: it must not be linked at all"
        );
    }
}

#[test]
fn every_command_is_registered_granted_and_used_by_the_ui() {
    let registered = registered_commands();
    assert_eq!(
        manifest_commands(),
        registered,
        "build.rs COMMANDS and generate_handler! in src/lib.rs list the same commands"
    );
    let product: BTreeSet<String> = registered
        .iter()
        .filter(|c| !TEST_HOOK_COMMANDS.contains(&c.as_str()))
        .cloned()
        .collect();
    assert_eq!(
        ui_commands(),
        product,
        "the UI (ui/src/lib/backend.ts) invokes exactly the registered commands but the test hooks: an unused one is attack surface"
    );
}

#[test]
fn no_forbidden_plugin_is_a_dependency() {
    let cargo = read(&manifest_dir().join("Cargo.toml"));
    let package = read(&manifest_dir().join("../ui/package.json"));
    for plugin in FORBIDDEN_PLUGINS {
        assert!(
            !cargo.contains(&format!("tauri-plugin-{plugin}\""))
                && !cargo.contains(&format!("tauri-plugin-{plugin} ")),
            "src-tauri depends on tauri-plugin-{plugin}"
        );
        assert!(
            !package.contains(&format!("@tauri-apps/plugin-{plugin}\"")),
            "the UI depends on @tauri-apps/plugin-{plugin}"
        );
    }
}

/// The parameters of each `#[tauri::command]` function in src/, by command name.
fn command_parameters() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(manifest_dir().join("src")).expect("src/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let source = read(&path);
        for (at, _) in source.match_indices("#[tauri::command]") {
            let rest = &source[at..];
            let Some(fn_at) = rest.find("fn ") else {
                continue;
            };
            let signature = &rest[fn_at + 3..];
            let name = signature[..signature.find('(').unwrap_or(0)]
                .trim()
                .to_string();
            let params = &signature[signature.find('(').unwrap_or(0)..];
            let params = &params[..params
                .find(") ->")
                .or_else(|| params.find(')'))
                .unwrap_or(0)];
            out.push((name, params.to_string()));
        }
    }
    out
}

#[test]
fn regression_exports_took_a_path_from_the_window() {
    // The save dialog (in Rust) says where an export goes; a page that could name the path
    // would hold a write-anywhere primitive.
    let exports: Vec<_> = command_parameters()
        .into_iter()
        .filter(|(name, _)| name.starts_with("export_"))
        .collect();
    assert!(
        exports.len() >= 2,
        "the export commands are found: {exports:?}"
    );
    for (name, params) in exports {
        assert!(
            !params.contains("path"),
            "{name} takes no path from the window: {params}"
        );
    }
}
