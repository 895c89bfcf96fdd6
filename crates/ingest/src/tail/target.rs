//! What can be tailed, and how a remote address is turned into a request without its secrets
//! ever leaving memory: the URL kept in the store has no userinfo and no secret-looking query
//! parameters, and header values never appear in Display or Debug output.

use std::fmt;
use std::path::PathBuf;

use reqwest::Url;

use super::TailError;
use journalscope_shapes::redact;

/// Sources a tail can follow. Streams are read; a posted stream (an AG-UI run) is the answer
/// to a request, so its body is POSTed first.
#[derive(Debug, Clone)]
pub enum Source {
    /// A local journal file being appended to.
    File(PathBuf),
    /// An HTTP (SSE or NDJSON) or WebSocket stream that is only read.
    Stream(StreamTarget),
    /// An endpoint that answers a POSTed body with a stream (an AG-UI run input): POST it,
    /// read the answer until it ends. `key` names the journal it is kept in. Built by
    /// `Source::posted`.
    Posted {
        target: StreamTarget,
        body: serde_json::Value,
        key: String,
    },
}

impl Source {
    /// A URL with a scheme we can read is a stream; anything else is a file path.
    pub fn parse(text: &str, headers: Vec<Header>) -> Result<Source, TailError> {
        let looks_remote = ["http://", "https://", "ws://", "wss://"]
            .iter()
            .any(|scheme| {
                text.len() > scheme.len() && text[..scheme.len()].eq_ignore_ascii_case(scheme)
            });
        if looks_remote {
            return Ok(Source::Stream(StreamTarget::new(text, headers)?));
        }
        if !headers.is_empty() {
            return Err(TailError::InvalidTarget(
                "headers only apply to remote streams".to_string(),
            ));
        }
        Ok(Source::File(PathBuf::from(text)))
    }
}

impl Source {
    /// A posted stream: `body` (an AG-UI `RunAgentInput`, say) is POSTed to the http(s) URL
    /// `text`, and the dialect whose streams answer such a body names its journal.
    pub fn posted(
        text: &str,
        headers: Vec<Header>,
        body: serde_json::Value,
    ) -> Result<Source, TailError> {
        let target = match Source::parse(text, headers)? {
            Source::Stream(target) if !target.is_websocket() => target,
            _ => {
                return Err(TailError::InvalidTarget(
                    "a body is POSTed to an http:// or https:// URL".to_string(),
                ))
            }
        };
        let key =
            journalscope_registry::dialect::posted(&body).map_err(TailError::InvalidTarget)?;
        Ok(Source::Posted { target, body, key })
    }
}

/// A header sent with every request. Its value is a secret as far as this program knows.
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    value: String,
}

impl Header {
    pub fn new(name: &str, value: &str) -> Result<Header, TailError> {
        let name = name.trim();
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid {
            return Err(TailError::InvalidTarget(format!(
                "{name:?} is not a header name"
            )));
        }
        Ok(Header {
            name: name.to_string(),
            value: value.trim().to_string(),
        })
    }

    /// Parses `Name: value`, as given on the command line.
    pub fn parse(text: &str) -> Result<Header, TailError> {
        let Some((name, value)) = text.split_once(':') else {
            return Err(TailError::InvalidTarget(
                "a header is written 'Name: value'".to_string(),
            ));
        };
        Header::new(name, value)
    }

    pub fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: <redacted>", self.name)
    }
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: <redacted>", self.name)
    }
}

/// How a stream is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Sse,
    Ndjson,
    WebSocket,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Sse => "sse",
            Transport::Ndjson => "ndjson",
            Transport::WebSocket => "websocket",
        }
    }

    /// The transport's name in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Transport::Sse => "SSE",
            Transport::Ndjson => "NDJSON",
            Transport::WebSocket => "WebSocket",
        }
    }
}

/// Query parameters this client sets itself on every attempt, so they are not part of the
/// stream's identity.
const POSITION_PARAMS: &[&str] = &["offset", "live"];

/// Query parameter names whose values are credentials often enough that they are never stored.
const SECRET_PARAMS: &[&str] = &[
    "token",
    "access_token",
    "auth",
    "key",
    "api_key",
    "apikey",
    "secret",
    "password",
    "signature",
    "sig",
];

/// Whether a query parameter of this name carries a credential.
fn is_secret_param(name: &str) -> bool {
    SECRET_PARAMS.contains(&name.to_ascii_lowercase().as_str()) || redact::is_secret_name(name)
}

/// A remote stream: its address and the headers to send.
#[derive(Clone)]
pub struct StreamTarget {
    url: Url,
    headers: Vec<Header>,
}

impl StreamTarget {
    pub fn new(url: &str, headers: Vec<Header>) -> Result<StreamTarget, TailError> {
        let url = Url::parse(url).map_err(|err| {
            // The text may hold a password; say what is wrong without echoing it.
            TailError::InvalidTarget(format!("not a URL: {err}"))
        })?;
        if !matches!(url.scheme(), "http" | "https" | "ws" | "wss") {
            return Err(TailError::InvalidTarget(format!(
                "cannot tail a {}: URL",
                url.scheme()
            )));
        }
        Ok(StreamTarget { url, headers })
    }

    pub fn headers(&self) -> &[Header] {
        &self.headers
    }

    pub fn is_websocket(&self) -> bool {
        matches!(self.url.scheme(), "ws" | "wss")
    }

    /// The address as stored and shown: no userinfo, no secret-looking or positional query
    /// parameters, no fragment.
    pub fn public_url(&self) -> String {
        let mut url = self.url.clone();
        // Only fails for URLs that cannot have userinfo, which then have none to hide.
        let _ = url.set_username("");
        let _ = url.set_password(None);
        url.set_fragment(None);
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(name, _)| {
                !POSITION_PARAMS.contains(&name.to_ascii_lowercase().as_str())
                    && !is_secret_param(name)
            })
            // A value shaped like a known key (`?q=sk-…`) is replaced by its marker.
            .map(|(n, v)| (n.into_owned(), redact::redact_text(&v).0))
            .collect();
        set_query(&mut url, &kept);
        // Tokens carried in the path (`/bot<token>/…`, `/hooks/xoxb-…`) are replaced too.
        let (path, found) = redact::redact_text(url.path());
        if found > 0 {
            url.set_path(&path);
        }
        url.to_string()
    }

    /// The credentials this target carries: userinfo, secret query values, header values.
    fn secrets(&self) -> Vec<String> {
        let mut secrets: Vec<String> = vec![self.url.username().to_string()];
        if let Some(password) = self.url.password() {
            secrets.push(password.to_string());
        }
        for (name, value) in self.url.query_pairs() {
            if is_secret_param(&name) {
                secrets.push(value.into_owned());
            }
        }
        // As written in the address, too: percent-encoded forms are what a message quotes.
        for pair in self.url.query().unwrap_or("").split('&') {
            if let Some((name, value)) = pair.split_once('=') {
                if is_secret_param(name) {
                    secrets.push(value.to_string());
                }
            }
        }
        secrets.extend(self.headers.iter().map(|h| h.value().to_string()));
        secrets.retain(|s| !s.is_empty());
        secrets
    }

    /// `text` (an error message from a library that may quote the request) without any of
    /// this target's credentials. The request's own address becomes the public one; a message
    /// that would still hold a credential too short to find safely is withheld.
    pub fn scrub(&self, text: &str) -> String {
        let public = self.public_url();
        // The address up to its query, then whatever query this attempt added, up to a space.
        let base = self.url.as_str().split('?').next().unwrap_or("");
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        if !base.is_empty() {
            while let Some(at) = rest.find(base) {
                out.push_str(&rest[..at]);
                out.push_str(&public);
                let tail = &rest[at + base.len()..];
                let skip = tail
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '>' | ')'))
                    .unwrap_or(tail.len());
                rest = &tail[skip..];
            }
        }
        out.push_str(rest);
        let mut text = redact::redact_text(&out).0;
        for secret in self.secrets() {
            if !text.contains(&secret) {
                continue;
            }
            if secret.len() < 4 {
                return "the connection failed (the library's message is withheld: it quotes \
                        a credential)"
                    .to_string();
            }
            text = text.replace(&secret, &redact::marker(&secret));
        }
        text
    }

    /// The address of one attempt: the user's URL with the start position set.
    /// The URL a run is POSTed to: as given, with no position of ours added.
    /// The transport the URL asks for: an endpoint named `ndjson` (or a `.ndjson` or `.jsonl`
    /// path) serves NDJSON, any other HTTP endpoint SSE.
    pub fn expected_transport(&self) -> Transport {
        if self.is_websocket() {
            return Transport::WebSocket;
        }
        let last = self
            .url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
            .unwrap_or("")
            .to_ascii_lowercase();
        if last == "ndjson" || last.ends_with(".ndjson") || last.ends_with(".jsonl") {
            Transport::Ndjson
        } else {
            Transport::Sse
        }
    }

    pub fn post_url(&self) -> Url {
        self.url.clone()
    }

    pub fn request_url(&self, offset: Option<&str>) -> Url {
        let mut url = self.url.clone();
        let mut pairs: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(name, _)| !POSITION_PARAMS.contains(&name.to_ascii_lowercase().as_str()))
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        if let Some(offset) = offset {
            pairs.push(("offset".to_string(), offset.to_string()));
        }
        pairs.push(("live".to_string(), "true".to_string()));
        set_query(&mut url, &pairs);
        url
    }
}

fn set_query(url: &mut Url, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
}

impl fmt::Debug for StreamTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamTarget")
            .field("url", &self.public_url())
            .field("headers", &self.headers)
            .finish()
    }
}

impl fmt::Display for StreamTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.public_url())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_url_drops_userinfo_secrets_and_position() {
        let target = StreamTarget::new(
            "https://alice:hunter2@example.test/api/streams/a?token=s3cret&offset=4&live=true&x=1#f",
            vec![],
        )
        .expect("valid URL");
        let shown = target.public_url();
        assert_eq!(
            shown, "https://example.test/api/streams/a?x=1",
            "nothing secret is kept"
        );
        assert!(
            !format!("{target:?}").contains("hunter2"),
            "Debug hides the password"
        );
    }

    #[test]
    fn request_url_sets_offset_and_live() {
        let target = StreamTarget::new("http://127.0.0.1:1/s?offset=9&x=1", vec![]).expect("valid");
        assert_eq!(
            target.request_url(Some("12")).as_str(),
            "http://127.0.0.1:1/s?x=1&offset=12&live=true",
            "the user's offset is replaced by the resume position"
        );
        assert_eq!(
            target.request_url(None).as_str(),
            "http://127.0.0.1:1/s?x=1&live=true",
            "oldest sends no offset"
        );
    }

    #[test]
    fn header_values_never_show_in_debug_or_display() {
        let header = Header::parse("Authorization: Bearer abc.def").expect("valid header");
        assert_eq!(
            header.value(),
            "Bearer abc.def",
            "the value is kept for requests"
        );
        let target =
            StreamTarget::new("http://127.0.0.1:1/s", vec![header.clone()]).expect("valid");
        for text in [
            format!("{header:?}"),
            header.to_string(),
            format!("{target:?}"),
        ] {
            assert!(!text.contains("abc.def"), "secret leaked into {text}");
        }
    }

    #[test]
    fn parse_tells_files_from_streams() {
        assert!(
            matches!(
                Source::parse("ws://127.0.0.1:9/x", vec![]),
                Ok(Source::Stream(_))
            ),
            "ws is a stream"
        );
        assert!(
            matches!(Source::parse("journal.jsonl", vec![]), Ok(Source::File(_))),
            "a path is a file"
        );
        assert!(
            Source::parse("journal.jsonl", vec![Header::parse("A: b").expect("valid")]).is_err(),
            "headers on a file are a mistake"
        );
    }

    #[test]
    fn public_url_drops_credential_like_params_and_redacts_key_shaped_values() {
        let target = StreamTarget::new(
            "http://127.0.0.1:1/bot/sk-proj-ABCDEFGHIJKLMNOPQRSTUV/s?x-api-key=k1&client_secret=c2&q=ghp_abcdefghijklmnopqrstuvwxyz012345&keep=1",
            vec![],
        )
        .expect("valid URL");
        let shown = target.public_url();
        for secret in ["k1", "c2", "ghp_abcdef", "sk-proj-ABC"] {
            assert!(!shown.contains(secret), "{secret} leaked into {shown}");
        }
        assert!(
            shown.contains("keep=1"),
            "ordinary parameters stay: {shown}"
        );
    }

    #[test]
    fn scrub_removes_the_request_address_and_every_credential_from_library_messages() {
        let target = StreamTarget::new(
            "ws://alice:hunter22@127.0.0.1:1/ws?token=tok-secret-9&x=1",
            vec![Header::parse("Authorization: Bearer hdr-secret-7").expect("valid header")],
        )
        .expect("valid URL");
        let request = target.request_url(Some("5"));
        let message =
            format!("URL error: Unable to connect to {request}; sent Bearer hdr-secret-7 as alice");
        let scrubbed = target.scrub(&message);
        for secret in ["hunter22", "tok-secret-9", "hdr-secret-7", "alice"] {
            assert!(
                !scrubbed.contains(secret),
                "{secret} leaked into {scrubbed}"
            );
        }
        assert!(
            scrubbed.contains("127.0.0.1:1/ws"),
            "the public address stays useful: {scrubbed}"
        );
        let short = StreamTarget::new("ws://u:pw@127.0.0.1:1/ws", vec![]).expect("valid URL");
        assert!(
            !short.scrub("failed for pw").contains("pw"),
            "a short credential withholds the whole message"
        );
    }
}
