//! The project's documents (README.md, ARCHITECTURE.md and everything under docs/) as a reader
//! follows them: every relative link names a file or folder that exists, and every `#anchor`
//! names a heading of the document it points into.

use std::path::{Path, PathBuf};

/// README.md, ARCHITECTURE.md and every Markdown file under docs/.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut pending = vec![root.join("docs")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read docs") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code spans and
/// fenced blocks.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold examples, not links: drop every other backtick-delimited piece.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, piece)| piece)
            .collect::<Vec<_>>()
            .join(" ");
        for (at, _) in prose.match_indices("](") {
            let rest = &prose[at + 2..];
            if let Some(end) = rest.find(')') {
                targets.push(rest[..end].trim().to_string());
            }
        }
    }
    targets
}

/// The anchor a heading gets, as GitHub makes it: lower case, punctuation other than `-` and
/// `_` dropped, spaces made hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor_of(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_relative_link_of_the_documents_resolves() {
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("read document");
        let dir = document.parent().expect("a document's folder");
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                document.clone()
            } else {
                dir.join(path)
            };
            assert!(
                file.exists(),
                "{} links to {target}, which is not there",
                document.display()
            );
            if let Some(anchor) = anchor {
                let linked = std::fs::read_to_string(&file).expect("read the linked document");
                assert!(
                    anchors(&linked).iter().any(|a| a == anchor),
                    "{} links to {target}, and {} has no heading with that anchor",
                    document.display(),
                    file.display()
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "the README links to the documents under docs/: {checked} links checked"
    );
}

#[test]
fn the_readme_stays_short_and_gives_the_two_commands() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("read README.md");
    // The README is what it is, how to install and run it, and links; the manual, the guarantees
    // and the figures live under docs/.
    assert!(
        readme.lines().count() <= 250,
        "README.md has {} lines: move reference material under docs/",
        readme.lines().count()
    );
    for command in ["make run", "make test"] {
        assert!(
            readme.contains(command),
            "README.md gives `{command}` for a fresh machine"
        );
    }
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    // Protects the anchor rule the link check relies on.
    assert_eq!(anchor_of(" Transport diagnostics"), "transport-diagnostics");
    assert_eq!(
        anchor_of("Tokens: counted, and set against what the provider reported"),
        "tokens-counted-and-set-against-what-the-provider-reported"
    );
    assert_eq!(anchor_of("iterate's agent loop"), "iterates-agent-loop");
}
