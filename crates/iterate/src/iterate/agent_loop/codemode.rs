//! Codemode, the form in which the agent loop's model writes a script into its answer: one
//! `<codemode>` opener line, the body, one closing `</codemode>` line, prose around them.
//! What an answer's text is decides its `run` call and whether it gave an owed answer.

/// What an answer's text is, as the loop reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Codemode {
    /// No opener and no closer: plain words.
    None,
    /// One well-formed script.
    Script(Script),
    /// Openers or closers that make no script (two openers, a closer first, no closer, a
    /// blank body): the text stands as it is.
    Malformed,
}

/// A script and the prose around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The text before and after the block, each trimmed, joined by a blank line.
    pub prose: String,
    /// The opener's `status="…"`, empty when it has none.
    pub status: String,
    /// The trimmed body as written.
    pub body: String,
    /// The body as a function of `itx`: the body itself when it already is one.
    pub code: String,
}

/// The opener's status when `line` is an opener: `<codemode>`, or `<codemode` then white space
/// and attributes without `>`, alone on its line but for spaces and tabs. The status is the
/// trimmed value of a `status="…"` attribute, empty when there is none.
fn opener(line: &str) -> Option<String> {
    let line = line.trim_matches([' ', '\t']);
    let attributes = line.strip_prefix("<codemode")?.strip_suffix('>')?;
    if attributes.contains('>')
        || !(attributes.is_empty() || attributes.starts_with(char::is_whitespace))
    {
        return None;
    }
    Some(status(attributes).unwrap_or_default())
}

/// The value of the first `status="…"` attribute that starts a word.
fn status(attributes: &str) -> Option<String> {
    let mut from = 0;
    while let Some(found) = attributes[from..].find("status=\"") {
        let at = from + found;
        let starts_word = attributes[..at]
            .chars()
            .next_back()
            .is_none_or(|before| !(before.is_alphanumeric() || before == '_'));
        let value = &attributes[at + "status=\"".len()..];
        if starts_word {
            return value
                .split_once('"')
                .map(|(status, _)| status.trim().to_string());
        }
        from = at + 1;
    }
    None
}

/// Whether a body already is an async function the loop runs as written: `async function`,
/// `async (` or `(async (`, with any white space after `async`.
fn is_async_function(body: &str) -> bool {
    let (parenthesised, rest) = match body.strip_prefix('(') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let Some(rest) = rest.strip_prefix("async") else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with('(') || (!parenthesised && rest.starts_with("function"))
}

fn closer(line: &str) -> bool {
    line.trim_matches([' ', '\t']) == "</codemode>"
}

/// Reads `text` as the loop does.
pub fn parse(text: &str) -> Codemode {
    let lines: Vec<&str> = text.split('\n').collect();
    let openers: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(at, line)| opener(line).map(|status| (at, status)))
        .collect();
    let closers: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| closer(line))
        .map(|(at, _)| at)
        .collect();
    if openers.is_empty() && closers.is_empty() {
        return Codemode::None;
    }
    let [(open, status)] = openers.as_slice() else {
        return Codemode::Malformed;
    };
    if closers.iter().any(|at| at < open) {
        return Codemode::Malformed;
    }
    // The last closer ends the body: a script may print a closer line of its own.
    let Some(&close) = closers.last() else {
        return Codemode::Malformed;
    };
    let body = lines[open + 1..close].join("\n").trim().to_string();
    if body.is_empty() {
        return Codemode::Malformed;
    }
    let before = lines[..*open].join("\n").trim().to_string();
    let after = lines[close + 1..].join("\n").trim().to_string();
    let prose = [before, after]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let code = if is_async_function(&body) {
        body.clone()
    } else {
        format!("async (itx) => {{\n{body}\n}}")
    };
    Codemode::Script(Script {
        prose,
        status: status.clone(),
        body,
        code,
    })
}

/// The script a legacy answer's `run` call carries: its code less the wrapper [`parse`] puts
/// around a bare body, when it has both ends of it.
pub fn unwrapped(code: &str) -> &str {
    code.strip_prefix("async (itx) => {\n")
        .and_then(|rest| rest.strip_suffix("\n}"))
        .unwrap_or(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_plain_words_when_parsed_then_they_are_none() {
        assert_eq!(parse("All done."), Codemode::None, "no opener, no closer");
    }

    #[test]
    fn given_a_script_with_prose_around_it_when_parsed_then_the_prose_is_joined_and_the_body_wrapped(
    ) {
        let text = "Checking.\n<codemode status=\"reading the log\">\nconst x = 1;\nreturn x;\n</codemode>\nBack soon.";
        let Codemode::Script(script) = parse(text) else {
            panic!("a well-formed block is a script: {:?}", parse(text));
        };
        assert_eq!(
            script.prose, "Checking.\n\nBack soon.",
            "the prose before and after, joined by a blank line"
        );
        assert_eq!(script.status, "reading the log", "the opener's status");
        assert_eq!(
            script.code, "async (itx) => {\nconst x = 1;\nreturn x;\n}",
            "a bare body is wrapped as a function of itx"
        );
        assert_eq!(
            unwrapped(&script.code),
            "const x = 1;\nreturn x;",
            "unwrapping gives the body back"
        );
    }

    #[test]
    fn given_a_body_that_is_a_function_when_parsed_then_it_is_the_code_as_written() {
        for body in [
            "async function main(itx) {}",
            "async (itx) => 1",
            "(async (itx) => 1)",
            "async(itx) => 1",
            "(async\t(itx) => 1)",
        ] {
            let text = format!("  <codemode>\t\n{body}\n </codemode> ");
            let Codemode::Script(script) = parse(&text) else {
                panic!("spaces and tabs around the tags are allowed: {text:?}");
            };
            assert_eq!(script.code, body, "{body} is already a function");
            assert_eq!(script.status, "", "no status on a bare opener");
        }
    }

    #[test]
    fn given_broken_blocks_when_parsed_then_they_are_malformed() {
        let cases = [
            ("<codemode>\nx\n", "no closer"),
            (
                "</codemode>\n<codemode>\nx\n</codemode>",
                "a closer before the opener",
            ),
            ("<codemode>\n<codemode>\nx\n</codemode>", "two openers"),
            ("<codemode>\n  \n</codemode>", "a blank body"),
            ("x\n</codemode>", "a closer alone"),
        ];
        for (text, why) in cases {
            assert_eq!(parse(text), Codemode::Malformed, "{why}: {text:?}");
        }
    }

    #[test]
    fn given_two_closers_when_parsed_then_the_last_ends_the_body() {
        let Codemode::Script(script) = parse("<codemode>\na\n</codemode>\nb\n</codemode>") else {
            panic!("one opener and closers after it make a script");
        };
        assert_eq!(
            script.body, "a\n</codemode>\nb",
            "the body runs to the last closer"
        );
    }

    #[test]
    fn given_openers_with_other_attributes_when_parsed_then_they_open_and_the_status_is_trimmed() {
        // Given openers the loop's line pattern accepts, with and without a status
        for (opener, status) in [
            ("<codemode lang=\"js\">", ""),
            ("<codemode  status=\" Checking \" lang=\"js\">", "Checking"),
            ("<codemode data-status=\"x\" status=\"y\">", "x"),
            ("<codemode xstatus=\"x\" status=\"y\">", "y"),
        ] {
            // When a block opens with them
            let text = format!("{opener}\nreturn 1\n</codemode>");
            // Then each is a script with the status a word-starting `status=` gives, trimmed
            let Codemode::Script(script) = parse(&text) else {
                panic!("{opener} opens a block: {:?}", parse(&text));
            };
            assert_eq!(script.status, status, "{opener}: its status");
        }
        // And an opener whose attributes hold a `>`, or with no space before them, opens nothing
        for line in ["<codemode a=\">\">", "<codemodex>"] {
            let text = format!("{line}\nreturn 1\n</codemode>");
            assert_eq!(
                parse(&text),
                Codemode::Malformed,
                "{line} is no opener, so the closer stands alone"
            );
        }
    }

    #[test]
    fn given_an_inline_tag_when_parsed_then_it_is_no_opener() {
        assert_eq!(
            parse("use <codemode> blocks to run code"),
            Codemode::None,
            "a tag inside a line of prose opens nothing"
        );
    }
}
