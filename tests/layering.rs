//! The core's layers, checked from its source: which top-level module may name which. A change
//! that makes the store know a dialect, a dialect know the pipeline above it, or two modules
//! depend on each other fails here with the edge that broke the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The crates under `crates/` that are development tools, not the core: the journal
/// generator, which writes each dialect's synthetic journals, and the bench, which times them. Their manifests still place them
/// (see the last test).
const DEVELOPMENT_CRATES: &[&str] = &["gen", "bench"];

/// The folders of the core's source: the root package's and each library crate's under
/// `crates/`, save the development tools.
fn source_roots() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("read crates") {
        let path = entry.expect("entry").path();
        if !DEVELOPMENT_CRATES.iter().any(|d| path.ends_with(d)) {
            roots.push(path.join("src"));
        }
    }
    roots
}

/// Top-level modules of the core and the modules each one names, through `crate::` or through
/// the crate that holds it (`journalscope_store::`, …), leaving out test code. A module's name
/// is unique across the crates, so a crate's modules are nodes of the one graph.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for src in source_roots() {
        let mut pending = vec![src.clone()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("read src") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                // A module's `tests.rs` is its tests, left out as a `#[cfg(test)]` block is.
                if path.extension().is_none_or(|e| e != "rs")
                    || path.file_name().is_some_and(|n| n == "tests.rs")
                {
                    continue;
                }
                let relative = path.strip_prefix(&src).expect("under src");
                let module = relative
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                    .map(|c| c.trim_end_matches(".rs").to_string())
                    .expect("a module name");
                if module == "main" || module == "lib" {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("read source");
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                let named = graph.entry(module.clone()).or_default();
                for name in named_modules(code) {
                    if name != module && name != "self" {
                        named.insert(name);
                    }
                }
            }
        }
    }
    graph
}

/// The modules `code` names through `crate::` or `journalscope_<crate>::`, one group
/// (`crate::{a, b::c}`) counting each of its names.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for (at, _) in code.match_indices("::") {
        let before = &code[..at];
        let path_root = before
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if path_root != "crate" && !path_root.starts_with("journalscope_") {
            continue;
        }
        let rest = &code[at + 2..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or("")
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap_or("").trim())
                .collect(),
            None => vec![rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")],
        };
        named.extend(
            names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(str::to_string),
        );
    }
    named
}

const DIALECTS: &[&str] = &["iterate", "agui", "agentskit", "claude", "codex"];

#[test]
fn the_store_and_what_it_keeps_name_no_dialect_and_nothing_above_them() {
    let graph = dependencies();
    let allowed: &[(&str, &[&str])] = &[
        ("derived", &["diagnostic"]),
        ("store", &["derived", "diagnostic", "record_json", "source"]),
        (
            "interpreter",
            &[
                "derived",
                "diagnostic",
                "record_json",
                "source",
                "family",
                "store",
                "transcript",
            ],
        ),
        ("family", &["store"]),
        ("conversation", &["family", "store", "transcript"]),
        // What Claude Code and Codex share: read from the store, and redacted as it leaves.
        ("transcript", &["derived", "record_json", "redact", "store"]),
        ("record_json", &[]),
        ("source", &[]),
        ("source_ends", &[]),
        ("diagnostic", &[]),
        ("tokens", &[]),
    ];
    for (module, may) in allowed {
        let named = graph.get(*module).cloned().unwrap_or_default();
        let forbidden: Vec<&String> = named
            .iter()
            .filter(|n| !may.contains(&n.as_str()))
            .collect();
        assert!(
            forbidden.is_empty(),
            "{module} may name only {may:?}, and names {forbidden:?}"
        );
    }
}

#[test]
fn no_two_core_modules_depend_on_each_other_through_any_path() {
    let graph = dependencies();
    for start in graph.keys() {
        // Depth-first from `start`, keeping the path, to name the cycle if there is one.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((module, path)) = stack.pop() {
            for next in graph.get(&module).into_iter().flatten() {
                if next == start {
                    panic!("an import cycle: {} -> {start}", path.join(" -> "));
                }
                if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
}

#[test]
fn the_command_line_s_own_dependencies_stay_out_of_the_library_and_the_desktop_app() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pending = vec![root.join("src")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if !path.ends_with("cli") {
                    pending.push(path);
                }
                continue;
            }
            if path.ends_with("main.rs") || path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read source");
            for crate_name in ["clap::", "indicatif::"] {
                assert!(
                    !text.contains(crate_name),
                    "{} names {crate_name}: argument parsing and progress bars live with the command line",
                    path.display()
                );
            }
        }
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("manifest");
    // The generator and the bench are development tools the command line builds in (`gen`,
    // `bench`); the desktop app ships without them.
    for dependency in [
        "clap = {",
        "indicatif = {",
        "journalscope-gen = {",
        "journalscope-bench = {",
    ] {
        let line = manifest
            .lines()
            .find(|l| l.starts_with(dependency))
            .unwrap_or_else(|| panic!("the manifest declares {dependency}"));
        assert!(
            line.contains("optional = true"),
            "{dependency} is built only with the command line's feature: {line}"
        );
    }
    let app = std::fs::read_to_string(root.join("src-tauri/Cargo.toml")).expect("app manifest");
    assert!(
        !app.lines().any(|l| l.starts_with("journalscope = {")),
        "the desktop app depends on the read model and the crates below it, not on the command line"
    );
}

/// Every source file of the core outside `under` (relative to its crate's `src/`), with its
/// text up to its tests.
fn core_sources_outside(under: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for src in source_roots() {
        let mut pending = vec![src.clone()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("read src") {
                let path = entry.expect("entry").path();
                let relative = path
                    .strip_prefix(&src)
                    .expect("under src")
                    .to_string_lossy()
                    .into_owned();
                if relative == under || relative.starts_with(&format!("{under}/")) {
                    continue;
                }
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && path.file_name().is_some_and(|n| n != "tests.rs")
                {
                    // A module's `tests.rs` is its tests, as a `#[cfg(test)]` block is.
                    let text = std::fs::read_to_string(&path).expect("read source");
                    let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                    found.push((relative, code));
                }
            }
        }
    }
    found
}

#[test]
fn only_the_store_writes_sql_against_a_journal_database() {
    // The console runs the user's own SQL on a read-only connection of its own (the bench, a
    // development crate not read here, times a bare SQLite load the same way).
    let own_connections = ["console.rs"];
    for (file, code) in core_sources_outside("store") {
        assert!(
            !code.contains("inspection_connection"),
            "{file} reaches the store's connection, which is there for tests only"
        );
        if !own_connections.contains(&file.as_str()) {
            assert!(
                !code.contains("rusqlite"),
                "{file} names rusqlite: the store owns the SQL, and others call its methods"
            );
        }
    }
}

#[test]
fn nothing_outside_the_dialects_and_their_registry_matches_on_which_dialect_a_journal_is() {
    // Which dialect a journal is decides only which implementation of the seam serves it: the
    // registry (`dialect`) picks it, the shapes (`derived`) name it, and each dialect knows
    // itself. Everything else asks what a journal offers. The bench and the generator, which
    // hold each dialect to its own targets and write its journals, are development crates, not
    // read here.
    let allowed = |file: &str| {
        ["derived.rs", "dialect.rs"].contains(&file)
            || DIALECTS.iter().any(|d| file.starts_with(&format!("{d}/")))
    };
    for (file, code) in core_sources_outside("no module") {
        if allowed(&file) {
            continue;
        }
        for variant in [
            "Dialect::Iterate",
            "Dialect::AgUi",
            "Dialect::AgentsKit",
            "Dialect::ClaudeCode",
            "Dialect::Codex",
        ] {
            assert!(
                !code.contains(variant),
                "{file} names {variant}: it should ask the journal what it offers"
            );
        }
    }
}

#[test]
fn the_command_line_asks_for_views_by_family_and_never_forks_on_a_journal_s_dialect() {
    // A journal's views are asked for by their family and each dialect writes its own text, so
    // a new dialect's views reach the command line without a line of it changing.
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut read = 0;
    for entry in std::fs::read_dir(&cli).expect("read src/cli") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        read += 1;
        let text = std::fs::read_to_string(&path).expect("read a command-line source");
        let code: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for fork in [
            "offers(",
            "Step::",
            "journalscope::iterate",
            "journalscope::agui",
            "journalscope::agentskit",
            "journalscope::claude",
            "journalscope::codex",
        ] {
            assert!(
                !code.contains(fork),
                "{} names {fork}: the command line asks the journal for a view by its family",
                path.display()
            );
        }
    }
    assert!(read >= 3, "the command line's sources were read");
}

/// The workspace crates a manifest's `[dependencies]` name.
fn workspace_dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("read manifest");
    let mut in_dependencies = false;
    let mut named = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && line.starts_with("journalscope") {
            let name = line
                .split(|c: char| c == '=' || c == '.' || c.is_whitespace())
                .next()
                .unwrap_or("");
            named.insert(name.to_string());
        }
    }
    named
}

/// What a dialect's crate may depend on: the seam, the store and the shapes, never another
/// dialect or what is built on the dialects.
const BELOW_A_DIALECT: &[&str] = &[
    "journalscope-seam",
    "journalscope-shapes",
    "journalscope-store",
];

/// A transcript dialect's crate may also depend on what the transcript dialects share.
const BELOW_A_TRANSCRIPT_DIALECT: &[&str] = &[
    "journalscope-seam",
    "journalscope-shapes",
    "journalscope-store",
    "journalscope-transcript",
];

#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    // The crates are the layers, so the compiler refuses an arrow that goes up; this holds the
    // arrows that may exist to the diagram in ARCHITECTURE.md.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layers: &[(&str, &[&str])] = &[
        ("crates/shapes", &[]),
        ("crates/store", &["journalscope-shapes"]),
        (
            "crates/transcript",
            &["journalscope-shapes", "journalscope-store"],
        ),
        (
            "crates/seam",
            &[
                "journalscope-shapes",
                "journalscope-store",
                "journalscope-transcript",
            ],
        ),
        ("crates/iterate", BELOW_A_DIALECT),
        ("crates/agui", BELOW_A_DIALECT),
        ("crates/agentskit", BELOW_A_DIALECT),
        ("crates/claude", BELOW_A_TRANSCRIPT_DIALECT),
        ("crates/codex", BELOW_A_TRANSCRIPT_DIALECT),
        (
            "crates/registry",
            &[
                "journalscope-agentskit",
                "journalscope-agui",
                "journalscope-claude",
                "journalscope-codex",
                "journalscope-iterate",
                "journalscope-seam",
                "journalscope-shapes",
                "journalscope-store",
                "journalscope-transcript",
            ],
        ),
        (
            "crates/ingest",
            &[
                "journalscope-registry",
                "journalscope-seam",
                "journalscope-shapes",
                "journalscope-store",
                "journalscope-transcript",
            ],
        ),
        (
            "crates/document",
            &[
                "journalscope-ingest",
                "journalscope-iterate",
                "journalscope-registry",
                "journalscope-seam",
                "journalscope-shapes",
                "journalscope-store",
                "journalscope-transcript",
            ],
        ),
        (
            "crates/bench",
            &[
                "journalscope-document",
                "journalscope-gen",
                "journalscope-ingest",
                "journalscope-iterate",
                "journalscope-registry",
                "journalscope-store",
            ],
        ),
        (
            "crates/gen",
            &[
                "journalscope-iterate",
                "journalscope-shapes",
                "journalscope-store",
            ],
        ),
        (
            ".",
            &[
                "journalscope-agentskit",
                "journalscope-agui",
                "journalscope-bench",
                "journalscope-claude",
                "journalscope-codex",
                "journalscope-document",
                "journalscope-gen",
                "journalscope-ingest",
                "journalscope-iterate",
                "journalscope-registry",
                "journalscope-seam",
                "journalscope-shapes",
                "journalscope-store",
                "journalscope-transcript",
            ],
        ),
        // The app asks for views by family: it names no dialect.
        (
            "src-tauri",
            &[
                "journalscope-document",
                "journalscope-ingest",
                "journalscope-registry",
            ],
        ),
    ];
    for (folder, may) in layers {
        let named = workspace_dependencies(&root.join(folder).join("Cargo.toml"));
        let expected: BTreeSet<String> = may.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            named, expected,
            "the crate in {folder} depends on the workspace crates {named:?}, and its layer allows {expected:?}"
        );
    }
    let crates: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .expect("read crates")
        .map(|e| format!("crates/{}", e.expect("entry").file_name().to_string_lossy()))
        .collect();
    for folder in &crates {
        assert!(
            layers.iter().any(|(f, _)| f == folder),
            "{folder} is a crate this test does not place in a layer"
        );
    }
}

/// The crates of the picture in ARCHITECTURE.md, top first: one level a line, several names on
/// a line (`journalscope-iterate · -agui · …`, each maybe followed by its folder) sharing it.
fn pictured_levels(architecture: &str) -> Vec<Vec<String>> {
    let picture = architecture
        .split("```")
        .nth(1)
        .expect("ARCHITECTURE.md draws the crates in its first code block");
    let mut levels = Vec::new();
    for line in picture.lines() {
        let line = line.trim();
        if !line.starts_with("journalscope") {
            continue;
        }
        let level: Vec<String> = line
            .split('·')
            .map(|part| part.split(" (").next().unwrap_or("").trim())
            .map(|name| match name.strip_prefix('-') {
                Some(short) => format!("journalscope-{short}"),
                None => name.to_string(),
            })
            .collect();
        levels.push(level);
    }
    levels
}

/// The development tools ARCHITECTURE.md places beside the picture: the crate names its
/// "Beside the picture" paragraph gives in backticks.
fn pictured_tools(architecture: &str) -> BTreeSet<String> {
    let paragraph = architecture
        .split("\n\n")
        .find(|p| p.contains("Beside the picture"))
        .expect("ARCHITECTURE.md names the development tools beside the picture");
    paragraph
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| name.starts_with("journalscope-"))
        .map(str::to_string)
        .collect()
}

/// Each workspace package and the workspace crates it depends on to build (not for its tests),
/// from `cargo metadata`.
fn metadata_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("cargo metadata writes JSON");
    let mut graph = BTreeMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"]
            .as_str()
            .expect("a package's name")
            .to_string();
        let depends: BTreeSet<String> = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| d.starts_with("journalscope"))
            .map(str::to_string)
            .collect();
        graph.insert(name, depends);
    }
    graph
}

#[test]
fn the_crate_graph_cargo_reports_is_the_picture_in_the_architecture() {
    // The picture is the promise a reader takes from ARCHITECTURE.md: each crate builds only on
    // crates drawn below it, never on one above or beside it, and the development tools beside
    // the picture reach nothing that ships except through the command line that builds them in.
    let architecture =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("read ARCHITECTURE.md");
    let levels = pictured_levels(&architecture);
    let tools = pictured_tools(&architecture);
    let level_of = |name: &str| levels.iter().position(|l| l.iter().any(|n| n == name));
    let graph = metadata_graph();
    assert!(levels.len() >= 8, "the picture has its levels: {levels:?}");
    for (package, depends) in &graph {
        let at = level_of(package);
        assert!(
            at.is_some() || tools.contains(package),
            "{package} is neither in the picture of ARCHITECTURE.md nor a tool beside it"
        );
        for dependency in depends {
            if tools.contains(dependency) {
                assert!(
                    package == "journalscope" || tools.contains(package),
                    "{package} builds on the development tool {dependency}: only the command \
                     line (and another tool) builds them in"
                );
                continue;
            }
            let below = level_of(dependency)
                .unwrap_or_else(|| panic!("{dependency} is not in the picture of ARCHITECTURE.md"));
            if let Some(at) = at {
                assert!(
                    below > at,
                    "{package} builds on {dependency}, which the picture draws {} it",
                    if below == at { "beside" } else { "above" }
                );
            } else {
                assert!(
                    below > 0,
                    "the development tool {package} builds on {dependency}, which ships as a \
                     binary of its own"
                );
            }
        }
    }
    for level in &levels {
        for name in level {
            assert!(
                graph.contains_key(name),
                "the picture draws {name}, which is no package of the workspace"
            );
        }
    }
}
