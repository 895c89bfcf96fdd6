//! Redaction of secrets in what leaves the program: exported request bodies and the `curl`
//! commands built from them. A journal is written by others, so a request body can quote
//! credentials (a pasted `Authorization:` header, an API key in a tool result); an export is
//! shared further. This module owns what counts as a secret and what replaces it.
//!
//! What counts as a secret:
//! - the value of an object member whose name is credential-like, anywhere in the JSON
//!   (`Authorization`, `Cookie`, `Set-Cookie`, `x-api-key`, `api_key`, `password`, `*secret`,
//!   `*_token` of the access/refresh/auth/session kinds, …; see [`is_secret_name`]);
//! - inside any string: `Bearer …` / `Basic …` credentials, `Name: value` or `name=value`
//!   pairs whose name is credential-like (the header lines and query strings people paste),
//!   and well-known key formats (`sk-…`, `sk-ant-…`, `ghp_…` and the other GitHub token
//!   prefixes, `github_pat_…`, `AKIA…`/`ASIA…`, `xox…` Slack tokens, `AIza…` Google keys);
//! - whatever the user names by JSON path ([`JsonPath`]).
//!
//! A secret is replaced by `[REDACTED:xxxxxxxx]`: the eight hex digits are the start of a
//! domain-separated BLAKE3 hash of the secret, so two equal secrets stay recognisably equal in
//! one export and across exports. Eight hex digits do not let anyone recover a random key; a
//! short, guessable password could be confirmed by someone who already guesses it.
//!
//! Redaction is idempotent (a marker is never redacted again) and changes nothing when there
//! is nothing to redact: then the output bytes are the input bytes.

use std::fmt;

use serde_json::Value;

/// Every marker starts with this; text that already starts with it is not redacted again.
pub const MARKER_PREFIX: &str = "[REDACTED:";

/// The text that replaces `secret`.
pub fn marker(secret: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"journalscope redaction v1\0");
    hasher.update(secret.as_bytes());
    let hex = hasher.finalize().to_hex();
    format!("{MARKER_PREFIX}{}]", &hex.as_str()[..8])
}

fn is_marker(text: &str) -> bool {
    text.starts_with(MARKER_PREFIX)
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedactError {
    #[error("{path:?} is not a JSON path: {reason}")]
    BadPath { path: String, reason: &'static str },
    #[error("the body is not JSON: {0}")]
    NotJson(String),
}

impl RedactError {
    /// The stable code tools and the window see.
    pub fn code(&self) -> &'static str {
        match self {
            RedactError::BadPath { .. } => "bad-redact-path",
            RedactError::NotJson(_) => "body-not-json",
        }
    }
}

/// One step of a [`JsonPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// An object member, or an array index when the value is an array.
    Name(String),
    /// Every member or element.
    Any,
}

/// A user-supplied path to a value that must be redacted. Two spellings are accepted: a JSON
/// Pointer (`/messages/2/content`, RFC 6901 escapes `~0` `~1`) and a dotted path
/// (`messages[2].content`, `$.messages.2.content`); in both, `*` matches every member or
/// element (`messages/*/content`, `messages[*].content`).
#[derive(Clone, PartialEq, Eq)]
pub struct JsonPath {
    text: String,
    steps: Vec<Step>,
}

impl fmt::Debug for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonPath({})", self.text)
    }
}

impl JsonPath {
    pub fn parse(text: &str) -> Result<JsonPath, RedactError> {
        let bad = |reason| RedactError::BadPath {
            path: text.to_string(),
            reason,
        };
        let trimmed = text.trim();
        let steps = if let Some(pointer) = trimmed.strip_prefix('/') {
            pointer
                .split('/')
                .map(|s| match s {
                    "*" => Step::Any,
                    _ => Step::Name(s.replace("~1", "/").replace("~0", "~")),
                })
                .collect()
        } else {
            let dotted = trimmed.strip_prefix('$').unwrap_or(trimmed);
            let dotted = dotted.strip_prefix('.').unwrap_or(dotted);
            let mut steps = Vec::new();
            for part in dotted.split('.') {
                let (name, mut rest) = match part.find('[') {
                    Some(i) => (&part[..i], &part[i..]),
                    None => (part, ""),
                };
                if !name.is_empty() {
                    steps.push(if name == "*" {
                        Step::Any
                    } else {
                        Step::Name(name.to_string())
                    });
                } else if rest.is_empty() {
                    return Err(bad("an empty step"));
                }
                while !rest.is_empty() {
                    let Some(end) = rest.find(']') else {
                        return Err(bad("a '[' without ']'"));
                    };
                    let inner = rest[1..end].trim_matches(|c| c == '"' || c == '\'');
                    steps.push(if inner == "*" {
                        Step::Any
                    } else {
                        Step::Name(inner.to_string())
                    });
                    rest = &rest[end + 1..];
                    if !rest.is_empty() && !rest.starts_with('[') {
                        return Err(bad("text after ']' that is not '[' or '.'"));
                    }
                }
            }
            steps
        };
        if steps.is_empty() {
            return Err(bad("no step: the whole body cannot be redacted by path"));
        }
        Ok(JsonPath {
            text: trimmed.to_string(),
            steps,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// What to redact beyond the built-in rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    paths: Vec<JsonPath>,
}

/// A redacted body and how many secrets it held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    pub bytes: Vec<u8>,
    pub secrets: usize,
}

impl Redactor {
    pub fn new(paths: Vec<JsonPath>) -> Redactor {
        Redactor { paths }
    }

    /// Parses every path, failing on the first that is not one.
    pub fn with_paths<S: AsRef<str>>(paths: &[S]) -> Result<Redactor, RedactError> {
        let paths = paths
            .iter()
            .map(|p| p.as_ref())
            .filter(|p| !p.trim().is_empty())
            .map(JsonPath::parse)
            .collect::<Result<_, _>>()?;
        Ok(Redactor { paths })
    }

    /// Redacts a JSON document. With nothing to redact the bytes come back unchanged; otherwise
    /// the document is written again as compact JSON, members in their original order.
    pub fn redact_json_bytes(&self, body: &[u8]) -> Result<Redacted, RedactError> {
        let mut value: Value =
            serde_json::from_slice(body).map_err(|e| RedactError::NotJson(e.to_string()))?;
        let secrets = self.redact_value(&mut value);
        if secrets == 0 {
            return Ok(Redacted {
                bytes: body.to_vec(),
                secrets,
            });
        }
        let bytes = serde_json::to_vec(&value).map_err(|e| RedactError::NotJson(e.to_string()))?;
        Ok(Redacted { bytes, secrets })
    }

    /// Redacts a JSON value in place; returns how many secrets were replaced.
    pub fn redact_value(&self, value: &mut Value) -> usize {
        let mut count = 0;
        for path in &self.paths {
            count += redact_path(value, &path.steps);
        }
        count + redact_tree(value)
    }
}

/// A request body as it leaves the program: `body` redacted by the built-in rules and `paths`,
/// or exactly as it is when `exact` (which then takes no path). The body and the number of
/// secrets replaced.
pub fn export_body<S: AsRef<str>>(
    body: Vec<u8>,
    exact: bool,
    paths: &[S],
) -> Result<Redacted, RedactError> {
    if exact {
        if let Some(path) = paths
            .iter()
            .map(AsRef::as_ref)
            .find(|p| !p.trim().is_empty())
        {
            return Err(RedactError::BadPath {
                path: path.to_string(),
                reason: "exact bytes redact nothing; drop the path or the exact option",
            });
        }
        return Ok(Redacted {
            bytes: body,
            secrets: 0,
        });
    }
    Redactor::with_paths(paths)?.redact_json_bytes(&body)
}

/// Replaces a whole value by its marker; a value that is already a marker (or null) stays.
fn replace_value(value: &mut Value) -> usize {
    let secret = match &*value {
        Value::Null => return 0,
        Value::String(s) if is_marker(s) => return 0,
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    *value = Value::String(marker(&secret));
    1
}

fn redact_path(value: &mut Value, steps: &[Step]) -> usize {
    let Some((step, rest)) = steps.split_first() else {
        return replace_value(value);
    };
    match (step, value) {
        (Step::Any, Value::Object(map)) => map.values_mut().map(|v| redact_path(v, rest)).sum(),
        (Step::Any, Value::Array(items)) => items.iter_mut().map(|v| redact_path(v, rest)).sum(),
        (Step::Name(name), Value::Object(map)) => {
            map.get_mut(name).map_or(0, |v| redact_path(v, rest))
        }
        (Step::Name(name), Value::Array(items)) => name
            .parse::<usize>()
            .ok()
            .and_then(|i| items.get_mut(i))
            .map_or(0, |v| redact_path(v, rest)),
        _ => 0,
    }
}

fn redact_tree(value: &mut Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter_mut()
            .map(|(name, v)| {
                if is_secret_name(name) {
                    replace_value(v)
                } else {
                    redact_tree(v)
                }
            })
            .sum(),
        Value::Array(items) => items.iter_mut().map(redact_tree).sum(),
        Value::String(text) => {
            let (redacted, count) = redact_text(text);
            if count > 0 {
                *text = redacted;
            }
            count
        }
        _ => 0,
    }
}

/// The name lowercased without `-` and `_`: `X-Api-Key`, `x_api_key` and `XAPIKEY` are one.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a JSON member of this name holds a credential. Plain `key` and `token` are not on
/// the list: iterate items have a `key` slot and `max_tokens` is no secret.
pub fn is_secret_name(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "xapikey",
        "apikey",
        "apitoken",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
        "xauthtoken",
        "sessiontoken",
        "bearertoken",
        "secret",
        "clientsecret",
        "secretkey",
        "privatekey",
        "password",
        "passwd",
        "credentials",
    ];
    const SUFFIXES: &[&str] = &["apikey", "secret", "password", "accesstoken", "secretkey"];
    let n = normalise(name);
    EXACT.contains(&n.as_str()) || SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// Names that, written `name: value` or `name=value` in text, introduce a secret. Header
/// names take the rest of the line; the others end at a space or a separator.
const HEADER_NAMES: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];
const PAIR_NAMES: &[&str] = &[
    "x-api-key",
    "api-key",
    "api_key",
    "apikey",
    "x-auth-token",
    "auth_token",
    "access_token",
    "refresh_token",
    "client_secret",
    "secret_key",
    "password",
    "passwd",
];

/// Well-known key formats: the prefix, the characters that may follow, and how many at least.
/// A key format: its prefix, the characters that may follow, and how many at least.
type KeyFormat = (&'static str, fn(u8) -> bool, usize);

const KEY_FORMATS: &[KeyFormat] = &[
    ("sk-ant-", is_key_char, 16),
    ("sk-", is_key_char, 16),
    ("github_pat_", is_word_char, 20),
    ("ghp_", is_alnum, 20),
    ("gho_", is_alnum, 20),
    ("ghu_", is_alnum, 20),
    ("ghs_", is_alnum, 20),
    ("ghr_", is_alnum, 20),
    ("AKIA", is_upper_alnum, 16),
    ("ASIA", is_upper_alnum, 16),
    ("xoxa-", is_slack_char, 10),
    ("xoxb-", is_slack_char, 10),
    ("xoxe-", is_slack_char, 10),
    ("xoxp-", is_slack_char, 10),
    ("xoxr-", is_slack_char, 10),
    ("xoxs-", is_slack_char, 10),
    ("AIza", is_key_char, 30),
];

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn is_word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn is_key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}
fn is_upper_alnum(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn is_slack_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
/// Characters of a bearer token (RFC 6750's b64token).
fn is_token68(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b)
}

/// Whether a match may start at `i`: the previous byte is not part of a word.
fn starts_word(bytes: &[u8], i: usize) -> bool {
    i == 0 || !is_key_char(bytes[i - 1])
}

fn run_len(bytes: &[u8], from: usize, accept: impl Fn(u8) -> bool) -> usize {
    bytes[from..].iter().take_while(|b| accept(**b)).count()
}

fn starts_with_ignore_case(bytes: &[u8], at: usize, word: &str) -> bool {
    bytes
        .get(at..at + word.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(word.as_bytes()))
}

/// Redacts secrets inside free text; returns the text and how many were replaced.
pub fn redact_text(text: &str) -> (String, usize) {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    // Everything before `copied` is already in `out`; every match starts and ends on an ASCII
    // byte or the end, so slicing at those positions stays on char boundaries.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphabetic() || !starts_word(bytes, i) {
            i += 1;
            continue;
        }
        if let Some((start, end)) = find_secret(bytes, i) {
            out.push_str(&text[copied..start]);
            out.push_str(&marker(&text[start..end]));
            copied = end;
            count += 1;
            i = end;
        } else {
            i += 1;
        }
    }
    if count == 0 {
        return (text.to_string(), 0);
    }
    out.push_str(&text[copied..]);
    (out, count)
}

/// The byte range of the secret introduced at `i`, if one is.
fn find_secret(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    for (prefix, accept, min) in KEY_FORMATS {
        if bytes[i..].starts_with(prefix.as_bytes()) {
            let body = run_len(bytes, i + prefix.len(), accept);
            let end = i + prefix.len() + body;
            if body >= *min && !bytes.get(end).is_some_and(|b| is_key_char(*b)) {
                return Some((i, end));
            }
        }
    }
    for scheme in ["bearer", "basic"] {
        if starts_with_ignore_case(bytes, i, scheme) {
            if let Some(range) = scheme_credential(bytes, i + scheme.len()) {
                return Some(range);
            }
        }
    }
    for (names, header) in [(HEADER_NAMES, true), (PAIR_NAMES, false)] {
        for name in names {
            if starts_with_ignore_case(bytes, i, name)
                && !bytes.get(i + name.len()).is_some_and(|b| is_key_char(*b))
            {
                if let Some(range) = pair_value(bytes, i + name.len(), header) {
                    return Some(range);
                }
            }
        }
    }
    None
}

/// After `Bearer`/`Basic`: spaces, then a token of at least 8 characters.
fn scheme_credential(bytes: &[u8], after: usize) -> Option<(usize, usize)> {
    let spaces = run_len(bytes, after, |b| b == b' ');
    if spaces == 0 {
        return None;
    }
    let start = after + spaces;
    let len = run_len(bytes, start, is_token68);
    (len >= 8).then_some((start, start + len))
}

/// HTTP authentication schemes whose name an `Authorization` value starts with.
const AUTH_SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "digest",
    "token",
    "negotiate",
    "ntlm",
    "hoba",
    "mutual",
    "vapid",
];

/// After a credential-like name: an optional closing quote, `:` or `=`, and the value. A
/// header's value keeps its scheme word (`Bearer`) so the kind of credential stays visible.
fn pair_value(bytes: &[u8], after: usize, header: bool) -> Option<(usize, usize)> {
    let mut at = after;
    if matches!(bytes.get(at), Some(b'"' | b'\'')) {
        at += 1;
    }
    at += run_len(bytes, at, |b| b == b' ' || b == b'\t');
    if !matches!(bytes.get(at), Some(b':' | b'=')) {
        return None;
    }
    at += 1;
    at += run_len(bytes, at, |b| b == b' ' || b == b'\t');
    let (start, end) = match bytes.get(at) {
        Some(q @ (b'"' | b'\'')) => {
            let start = at + 1;
            let len = run_len(bytes, start, |b| b != *q && b != b'\n');
            (start, start + len)
        }
        _ => {
            let stop: &[u8] = if header {
                b"\r\n\"'"
            } else {
                b"\r\n\"' \t&,;}"
            };
            (at, at + run_len(bytes, at, |b| !stop.contains(&b)))
        }
    };
    // Trailing spaces are not part of the secret.
    let end = start + bytes[start..end].trim_ascii_end().len();
    let mut start = start;
    if header {
        // `Bearer abc`: keep the scheme, redact what follows. Only a known scheme is kept: any
        // other first word (a cookie's value) is the secret itself.
        let word = run_len(bytes, start, |b| b.is_ascii_alphabetic());
        let scheme = &bytes[start..start + word];
        if AUTH_SCHEMES
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s.as_bytes()))
            && bytes.get(start + word) == Some(&b' ')
        {
            let after = start + word + 1 + run_len(bytes, start + word + 1, |b| b == b' ');
            if after < end {
                start = after;
            }
        }
    }
    if end <= start || bytes[start..end].starts_with(MARKER_PREFIX.as_bytes()) {
        return None;
    }
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn text(t: &str) -> String {
        redact_text(t).0
    }

    #[test]
    fn marker_is_stable_short_and_equal_for_equal_secrets() {
        let a = marker("sk-abc");
        assert_eq!(a, marker("sk-abc"), "equal secrets give equal markers");
        assert_ne!(
            a,
            marker("sk-abd"),
            "different secrets give different markers"
        );
        assert!(
            a.starts_with("[REDACTED:") && a.len() == "[REDACTED:".len() + 9,
            "eight hex digits and a bracket: {a}"
        );
    }

    #[test]
    fn given_bearer_tokens_when_redacted_then_the_scheme_stays_and_the_token_goes() {
        let out = text("curl -H 'Authorization: Bearer abc.def-ghi_123' https://x");
        assert!(!out.contains("abc.def-ghi_123"), "token removed: {out}");
        assert!(
            out.contains("Authorization: Bearer [REDACTED:"),
            "scheme kept: {out}"
        );
        let out = text("use bearer   eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig now");
        assert!(!out.contains("eyJhbGci"), "a bare bearer token: {out}");
        assert_eq!(
            text("the bearer of bad news"),
            "the bearer of bad news",
            "prose is not a credential"
        );
    }

    #[test]
    fn given_header_lines_when_redacted_then_values_to_the_end_of_line_go() {
        let out = text("Cookie: session=abc; theme=dark\nSet-Cookie: id=42; HttpOnly\nnext line");
        assert!(
            !out.contains("session=abc") && !out.contains("id=42"),
            "cookie values removed: {out}"
        );
        assert!(out.ends_with("\nnext line"), "the next line is kept: {out}");
        let out = text(r#"{"x-api-key": "k-12345", "other": 1}"#);
        assert!(
            !out.contains("k-12345") && out.contains(r#""other": 1"#),
            "JSON in text: {out}"
        );
        let out = text("https://h/p?api_key=s3cr3t&x=1");
        assert!(
            !out.contains("s3cr3t") && out.ends_with("&x=1"),
            "query strings: {out}"
        );
        assert_eq!(
            text("my passwords: none"),
            "my passwords: none",
            "a longer word is not a name"
        );
    }

    #[test]
    fn given_well_known_key_formats_when_redacted_then_each_is_replaced() {
        for key in [
            "sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-123456789012-abcdefghij",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz012",
        ] {
            let out = text(&format!("key ({key}) here"));
            assert!(!out.contains(key), "{key} stays hidden: {out}");
            assert!(
                out.starts_with("key ([REDACTED:") && out.ends_with(") here"),
                "only the key is replaced: {out}"
            );
        }
        for harmless in ["task-sk-1", "desk-0123456789abcdefghij", "sk-short", "AKIA"] {
            assert_eq!(text(harmless), harmless, "{harmless} is not a key");
        }
    }

    #[test]
    fn given_secret_member_names_anywhere_when_redacted_then_their_values_go() {
        let redactor = Redactor::default();
        let mut value = json!({
            "headers": {"Authorization": "Bearer abc", "X-Api-Key": 12345, "Accept": "json"},
            "nested": [{"client_secret": {"a": 1}}, {"key": "github/review-task"}],
            "max_tokens": 10,
        });
        let count = redactor.redact_value(&mut value);
        assert_eq!(count, 3, "three secret members: {value}");
        assert_eq!(
            value["headers"]["Accept"], "json",
            "ordinary members are kept"
        );
        assert_eq!(
            value["nested"][1]["key"], "github/review-task",
            "an item key is no secret"
        );
        assert_eq!(value["max_tokens"], 10, "max_tokens is no secret");
        assert_eq!(
            value["headers"]["X-Api-Key"],
            Value::String(marker("12345")),
            "numbers are hashed as written"
        );
    }

    #[test]
    fn given_user_paths_in_both_spellings_when_redacted_then_those_values_go() {
        let body = json!({"model": "m", "messages": [
            {"role": "system", "content": "a"},
            {"role": "user", "content": "b"},
        ]});
        for path in [
            "/messages/1/content",
            "messages[1].content",
            "$.messages.1.content",
        ] {
            let redactor = Redactor::with_paths(&[path]).expect("a valid path");
            let mut value = body.clone();
            assert_eq!(redactor.redact_value(&mut value), 1, "{path} matches once");
            assert_eq!(
                value["messages"][1]["content"],
                Value::String(marker("b")),
                "{path}"
            );
            assert_eq!(
                value["messages"][0]["content"], "a",
                "{path} leaves the rest"
            );
        }
        let redactor = Redactor::with_paths(&["messages[*].content"]).expect("wildcard");
        let mut value = body.clone();
        assert_eq!(
            redactor.redact_value(&mut value),
            2,
            "a wildcard matches every element"
        );
        assert!(
            JsonPath::parse("a[1").is_err() && JsonPath::parse("$").is_err(),
            "bad paths are refused"
        );
    }

    #[test]
    fn regression_a_header_value_followed_by_a_word_kept_its_first_word() {
        // A cookie's value followed by more text was read as `Scheme credential`, and the
        // value itself was kept as if it were the scheme.
        let out = text("Cookie: aaaa .");
        assert!(!out.contains("aaaa"), "the cookie value is redacted: {out}");
        let out = text("Authorization: Bearer abcdefgh123 now");
        assert!(
            out.starts_with("Authorization: Bearer [REDACTED") && !out.contains("abcdefgh123"),
            "a known scheme stays visible, its credential does not: {out}"
        );
    }

    #[test]
    fn given_a_body_without_secrets_when_redacted_then_the_bytes_are_unchanged() {
        let body = br#"{"model":"m","messages":[{"role":"user","content":"hello \"world\"\n"}]}"#;
        let out = Redactor::default()
            .redact_json_bytes(body)
            .expect("valid JSON");
        assert_eq!(out.bytes, body.to_vec(), "byte for byte");
        assert_eq!(out.secrets, 0, "nothing counted");
    }

    /// Text holding one secret, and the secret.
    fn secret_piece() -> impl Strategy<Value = (String, String)> {
        let with = |text: String, secret: String| (text, secret);
        prop_oneof![
            "[A-Za-z0-9]{16,24}".prop_map(move |t| with(format!("sk-{t}"), t)),
            "[A-Za-z0-9]{20,24}".prop_map(move |t| with(format!("ghp_{t}"), t)),
            "[A-Z0-9]{16}".prop_map(move |t| with(format!("AKIA{t}"), t)),
            "[A-Za-z0-9._-]{8,20}".prop_map(move |t| with(format!("Bearer {t}"), t)),
            "[a-z0-9=;]{4,20}".prop_map(move |t| with(format!("Cookie: {t}"), t)),
            "[a-z0-9]{4,12}".prop_map(move |t| with(format!("\"password\": \"{t}\""), t)),
            "[a-z0-9]{4,12}".prop_map(move |t| with(format!("api_key={t}&"), t)),
        ]
    }

    fn mixed_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                "[ -~\n]{0,12}",
                "[a-zé日 \n\"'=:]{0,8}",
                secret_piece().prop_map(|(text, _)| text),
            ],
            0..8,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn redaction_is_idempotent(t in mixed_text()) {
            let (once, _) = redact_text(&t);
            let (twice, count) = redact_text(&once);
            prop_assert_eq!(&twice, &once, "a second pass changes nothing");
            prop_assert_eq!(count, 0, "a second pass finds nothing");
        }

        #[test]
        fn inserted_key_formats_never_survive(prefix in "[ a-z\n]{0,6}", piece in secret_piece(), suffix in "[ .,\n]{0,6}") {
            let (key, secret) = piece;
            let t = format!("{prefix} {key}{suffix}");
            let (out, count) = redact_text(&t);
            prop_assert!(count >= 1, "something redacted in {:?}", t);
            prop_assert!(!out.contains(&secret), "{:?} leaked in {:?}", secret, out);
        }

        #[test]
        fn text_without_secrets_is_unchanged(t in "[a-j0-9 .,:=\n\"{}]{0,80}") {
            prop_assert_eq!(redact_text(&t), (t.clone(), 0), "nothing to redact");
            let body = serde_json::to_vec(&json!({"model": "m", "messages": [{"role": "user", "content": t}]}))
                .expect("serialisable");
            let out = Redactor::default().redact_json_bytes(&body).expect("valid JSON");
            prop_assert_eq!(out.bytes, body, "bytes equal the exact ones");
        }

        #[test]
        fn redacted_json_stays_valid_and_idempotent(contents in proptest::collection::vec(mixed_text(), 1..5)) {
            let messages: Vec<Value> = contents.iter().map(|c| json!({"role": "user", "content": c})).collect();
            let body = serde_json::to_vec(&json!({"model": "m", "messages": messages})).expect("serialisable");
            let redactor = Redactor::with_paths(&["/model"]).expect("valid path");
            let once = redactor.redact_json_bytes(&body).expect("valid JSON in");
            let parsed: Value = serde_json::from_slice(&once.bytes).expect("valid JSON out");
            prop_assert_eq!(parsed["messages"].as_array().map(Vec::len), Some(contents.len()), "same shape");
            let twice = redactor.redact_json_bytes(&once.bytes).expect("still valid");
            prop_assert_eq!(twice.bytes, once.bytes, "idempotent on bytes");
        }
    }
}
