//! TLS for remote streams: one rustls client configuration for HTTP and WebSocket alike, which
//! trusts the system's roots plus the CA files the user names, and the one-line reason when a
//! server's certificate does not verify. Nothing here turns verification off.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{CertificateError, RootCertStore};

use super::TailError;

/// The client configuration every `https://` and `wss://` connection of a tail uses.
pub(crate) fn client_config(
    extra_roots: &[PathBuf],
) -> Result<Arc<rustls::ClientConfig>, TailError> {
    let roots = trusted_roots(extra_roots)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| TailError::Failed(format!("TLS set-up: {err}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The system's roots and every certificate of `extra_roots`.
fn trusted_roots(extra_roots: &[PathBuf]) -> Result<RootCertStore, TailError> {
    let mut roots = RootCertStore::empty();
    // Debian's ca-certificates; a file in it that does not parse leaves the others usable.
    let system = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(system.certs);
    for path in extra_roots {
        for cert in read_pem_certificates(path)? {
            roots.add(cert).map_err(|err| {
                TailError::InvalidTarget(format!("{}: not a CA certificate: {err}", path.display()))
            })?;
        }
    }
    Ok(roots)
}

fn read_pem_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TailError> {
    let unreadable = |err: &dyn std::fmt::Display| {
        TailError::InvalidTarget(format!("CA file {}: {err}", path.display()))
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|err| unreadable(&err))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| unreadable(&err))?;
    if certs.is_empty() {
        return Err(unreadable(&"no PEM certificate in it"));
    }
    Ok(certs)
}

/// When `err` (or one of its causes) is a TLS failure: one line naming the problem and `host`.
pub(crate) fn refusal_reason(err: &(dyn Error + 'static), host: &str) -> Option<String> {
    let mut cause = Some(err);
    while let Some(current) = cause {
        if let Some(tls) = as_tls_error(current) {
            return Some(describe(tls, host));
        }
        cause = current.source();
    }
    None
}

/// An I/O error hides what it wraps from `source()`, and connectors wrap I/O errors in I/O
/// errors: look inside each of them too.
fn as_tls_error<'a>(mut err: &'a (dyn Error + 'static)) -> Option<&'a rustls::Error> {
    loop {
        if let Some(tls) = err.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        let inner = err.downcast_ref::<std::io::Error>()?.get_ref()?;
        err = inner;
    }
}

fn describe(err: &rustls::Error, host: &str) -> String {
    let rustls::Error::InvalidCertificate(problem) = err else {
        return format!("TLS with {host} failed: {err}");
    };
    match problem {
        CertificateError::UnknownIssuer => format!(
            "the certificate of {host} has an unknown issuer: no trusted CA signed it (trust its CA with --cacert FILE, or in the Connect dialog)"
        ),
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            format!("the certificate of {host} has expired")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            format!("the certificate of {host} is not valid yet")
        }
        CertificateError::NotValidForName => {
            format!("the certificate of {host} is for another name")
        }
        CertificateError::NotValidForNameContext { presented, .. } => format!(
            "the certificate of {host} is for another name (it names {})",
            presented.join(", ")
        ),
        CertificateError::Revoked => format!("the certificate of {host} is revoked"),
        CertificateError::BadSignature => {
            format!("the certificate of {host} has a bad signature")
        }
        other => format!("the certificate of {host} does not verify: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_a_certificate_error_inside_an_io_error_when_described_then_the_line_names_it_and_the_host(
    ) {
        // The HTTP connector reports a failed handshake as an io::Error around an io::Error
        // around the rustls error.
        let io = std::io::Error::other(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
        ));
        let line = refusal_reason(&io, "streams.example").expect("a TLS reason");
        assert!(line.contains("unknown issuer"), "{line}");
        assert!(line.contains("streams.example"), "{line}");
        assert!(!line.contains('\n'), "one line: {line}");
    }

    #[test]
    fn given_an_error_that_is_not_tls_when_described_then_there_is_no_tls_reason() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        assert_eq!(refusal_reason(&io, "streams.example"), None);
    }

    #[test]
    fn given_debian_ca_certificates_when_roots_are_loaded_then_the_system_roots_are_trusted() {
        // Public servers verify against these; a build that loaded none would refuse them all.
        if !Path::new("/etc/ssl/certs/ca-certificates.crt").exists() {
            return;
        }
        let roots = trusted_roots(&[]).expect("system roots");
        assert!(
            roots.len() > 50,
            "Debian ships over a hundred roots, got {}",
            roots.len()
        );
    }

    #[test]
    fn given_a_file_without_certificates_when_trusted_then_the_error_names_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("empty.pem");
        std::fs::write(&path, "not a certificate\n").expect("write");
        let err = client_config(std::slice::from_ref(&path)).expect_err("nothing to trust");
        assert!(err.to_string().contains("empty.pem"), "{err}");
    }
}
