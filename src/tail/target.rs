//! What can be tailed, and how a remote address is turned into a request without its secrets
//! ever leaving memory: the URL kept in the store has no userinfo and no secret-looking query
//! parameters, and header values never appear in Display or Debug output.

use std::fmt;
use std::path::PathBuf;

use reqwest::Url;

use super::TailError;

/// Sources a tail can follow. Streams are read; AG-UI runs and AgentsKit turns are requests
/// whose answer is a stream, so they will need a body to POST first.
#[derive(Debug, Clone)]
pub enum Source {
    /// A local journal file being appended to.
    File(PathBuf),
    /// An HTTP (SSE or NDJSON) or WebSocket stream that is only read.
    Stream(StreamTarget),
    /// An AG-UI endpoint: POST the run input, read the SSE answer. Not supported yet.
    AgUiRun {
        target: StreamTarget,
        input: serde_json::Value,
    },
    /// An AgentsKit endpoint: POST a submit envelope, read the NDJSON answer. Not supported yet.
    AgentsKitTurn {
        target: StreamTarget,
        envelope: serde_json::Value,
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
                let lower = name.to_ascii_lowercase();
                !POSITION_PARAMS.contains(&lower.as_str())
                    && !SECRET_PARAMS.contains(&lower.as_str())
            })
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        set_query(&mut url, &kept);
        url.to_string()
    }

    /// The address of one attempt: the user's URL with the start position set.
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
}
