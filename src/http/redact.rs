//! The one redaction every HTTP client of askzico goes through ([`Redactor::redact`]): text built
//! from an exchange (a transport error, a server's answer) is made safe before anything can print
//! or store it. It removes the secrets the client holds (the API token, the credentials of a URL)
//! wherever they appear, in any letter case and in the forms a server may echo them in (raw,
//! percent-encoded once, twice or byte by byte, JSON- or HTML-escaped, hex, and base64 or base64url wherever the
//! secret sits in the encoded bytes, as in the Basic form of `user:token`), and, in any text, URL
//! userinfo and whatever looks like an `Authorization` value.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

/// What stands in for a removed secret.
pub(crate) const MASK: &str = "***";

/// Text that went through [`Redactor::redact`]: the error type of askzico's HTTP clients, so no
/// error of theirs can skip the redaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted(String);

impl Redacted {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Redacted> for String {
    fn from(r: Redacted) -> String {
        r.0
    }
}

/// The secrets of one client, each in every form it may be echoed in, matched by one pattern.
#[derive(Clone, Default)]
pub(crate) struct Redactor {
    /// Forms matched in any letter case: the text forms (a server may fold case, and percent
    /// and hex escapes may be written in either case).
    folded: Vec<String>,
    /// Forms matched exactly: base64, whose letter case carries the bits.
    exact: Vec<String>,
    /// Every form, longest first (at one position the longest form wins).
    pattern: Option<Regex>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Redactor({} secret forms)",
            self.folded.len() + self.exact.len()
        )
    }
}

/// The shortest base64 run taken as a secret's: shorter ones would mask ordinary words.
const MIN_BASE64_RUN: usize = 6;

/// The shortest secret also matched in other letter cases and encodings (hex, percent, …).
const MIN_FOLDED_SECRET: usize = 8;

impl Redactor {
    /// Adds a secret value (an API token) in each form a server may echo it in.
    pub(crate) fn secret(mut self, value: &str) -> Self {
        if value.is_empty() {
            return self;
        }
        if value.len() < MIN_FOLDED_SECRET {
            // A short secret (a proxy URL's password, say) in other cases and encodings would
            // match ordinary text and hashes of the answers it scrubs: it is masked as written.
            push_new(&mut self.exact, value.to_string());
            self.compile();
            return self;
        }
        let json = serde_json::to_string(value).expect("a string serializes");
        let json = &json[1..json.len() - 1];
        let percent = percent_encode(value);
        let html = value
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;");
        let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
        let every_byte: String = value.bytes().map(|b| format!("%{b:02x}")).collect();
        for f in [
            value.to_string(),
            every_byte,
            percent_encode(&percent),
            percent,
            json.to_string(),
            json.replace('/', "\\/"),
            html,
            hex,
        ] {
            push_new(&mut self.folded, f);
        }
        for f in base64_forms(value.as_bytes()) {
            if f.len() >= MIN_BASE64_RUN {
                push_new(&mut self.exact, f);
            }
        }
        self.compile();
        self
    }

    fn compile(&mut self) {
        let mut forms: Vec<(bool, &String)> = self
            .folded
            .iter()
            .map(|f| (true, f))
            .chain(self.exact.iter().map(|f| (false, f)))
            .collect();
        forms.sort_by_key(|(_, f)| std::cmp::Reverse(f.len()));
        let alternatives: Vec<String> = forms
            .iter()
            .map(|(fold, f)| {
                let flag = if *fold { "(?i:" } else { "(?-i:" };
                format!("{flag}{})", regex::escape(f))
            })
            .collect();
        self.pattern = regex::RegexBuilder::new(&alternatives.join("|"))
            .size_limit(64 << 20)
            .build()
            .ok();
    }

    /// What [`Redactor::scrub`] does without the pattern (should it ever fail to compile): each
    /// form found on its own, the folded ones in any ASCII case, every match masked.
    fn scrub_by_search(&self, text: String) -> String {
        let lower = text.to_ascii_lowercase();
        let mut hits: Vec<(usize, usize)> = Vec::new();
        let forms = self
            .folded
            .iter()
            .map(|f| (f.to_ascii_lowercase(), &lower))
            .chain(self.exact.iter().map(|f| (f.clone(), &text)));
        for (form, haystack) in forms {
            hits.extend(
                haystack
                    .match_indices(form.as_str())
                    .map(|(i, m)| (i, i + m.len())),
            );
        }
        if hits.is_empty() {
            return text;
        }
        hits.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in hits {
            if start >= at {
                out.push_str(&text[at..start]);
                out.push_str(MASK);
                at = end;
            } else if end > at {
                at = end;
            }
        }
        out.push_str(&text[at..]);
        out
    }

    /// Adds the credentials of a URL (`scheme://user:password@host/…`), if it has any: the
    /// userinfo, the password (as written and percent-decoded) and their Basic-auth form.
    pub(crate) fn url(mut self, url: &str) -> Self {
        let Some(userinfo) = userinfo(url) else {
            return self;
        };
        let decoded = percent_decode(userinfo);
        for s in [
            userinfo.to_string(),
            decoded.clone(),
            base64(userinfo.as_bytes()),
            base64(decoded.as_bytes()),
        ] {
            self = self.secret(&s);
        }
        if let Some((_, password)) = userinfo.split_once(':') {
            self = self.secret(password).secret(&percent_decode(password));
        }
        self
    }

    /// The redaction: every form of every secret, then URL userinfo, `Authorization` values and
    /// `Bearer`/`Basic` credentials, whoever they belong to.
    pub(crate) fn redact(&self, text: &str) -> Redacted {
        Redacted(redact(&self.scrub(text.to_string()), &[]))
    }

    /// Removes the secrets only: lossless for any text that does not hold one, so it is what a
    /// client applies to the data a server returns (which callers parse, and may print) before
    /// handing it on. [`Redactor::redact`] starts with it.
    pub(crate) fn scrub(&self, text: String) -> String {
        match &self.pattern {
            Some(p) if p.is_match(&text) => p.replace_all(&text, MASK).into_owned(),
            Some(_) => text,
            None if self.folded.is_empty() => text,
            None => self.scrub_by_search(text),
        }
    }
}

fn push_new(forms: &mut Vec<String>, f: String) {
    if !f.is_empty() && !forms.contains(&f) {
        forms.push(f);
    }
}

/// The base64 and base64url text of `secret` wherever it sits in encoded bytes: for each of the
/// three offsets it can start at within a 3-byte group, the run of characters that only its own
/// bytes decide (the characters at its edges mix in its neighbours' bits); and the whole
/// encoding of `secret` alone, with and without its padding.
fn base64_forms(secret: &[u8]) -> Vec<String> {
    let mut forms = Vec::new();
    let whole = base64(secret);
    forms.push(whole.trim_end_matches('=').to_string());
    forms.push(whole);
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret);
        let encoded = base64(&bytes);
        let (first_bit, end_bit) = (8 * offset, 8 * (offset + secret.len()));
        let run: String = encoded
            .chars()
            .enumerate()
            .filter(|(i, _)| 6 * i >= first_bit && 6 * i + 6 <= end_bit)
            .map(|(_, c)| c)
            .collect();
        forms.push(run);
    }
    let url_safe: Vec<String> = forms
        .iter()
        .map(|f| f.replace('+', "-").replace('/', "_"))
        .collect();
    forms.extend(url_safe);
    forms
}

/// A URL as a message may show a value given for an API base: its userinfo masked, and its query
/// and fragment too (they may carry a key).
pub(crate) fn shown_base(url: &str) -> String {
    let shown = shown_url(url);
    match shown.find(['?', '#']) {
        Some(i) => format!("{}{MASK}", &shown[..=i]),
        None => shown,
    }
}

static USERINFO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#\s"'<>\\]*@"#).expect("valid regex")
});
static AUTH_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(authorization\\?["']?\s*[:=]\s*\[?\s*\\?["']?)[^"'\\\r\n,;&}\]]+"#)
        .expect("valid regex")
});
static SCHEME_CREDENTIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(bearer|basic)(\s+|%20|\+)[^\s"'\\,;&}\]]+"#).expect("valid regex")
});

/// The redaction of any text: `secrets` (exact values) and, whoever they belong to, URL userinfo
/// (`https://user:pass@host` → `https://***@host`), `Authorization` header values and
/// `Bearer`/`Basic` credentials in any case.
pub(crate) fn redact(text: &str, secrets: &[&str]) -> String {
    let mut s = text.to_string();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        s = s.replace(secret, MASK);
    }
    let s = USERINFO.replace_all(&s, format!("${{1}}{MASK}@"));
    let s = AUTH_VALUE.replace_all(&s, format!("${{1}}{MASK}"));
    let s = SCHEME_CREDENTIAL.replace_all(&s, format!("${{1}}${{2}}{MASK}"));
    s.into_owned()
}

/// A URL as it may be shown: its userinfo masked (`https://***@host/…`), with or without a scheme.
pub(crate) fn shown_url(url: &str) -> String {
    match userinfo_range(url) {
        Some(r) => format!("{}{MASK}{}", &url[..r.start], &url[r.end..]),
        None => url.to_string(),
    }
}

/// The userinfo of a URL (before the last `@` of its authority), if any.
fn userinfo(url: &str) -> Option<&str> {
    userinfo_range(url).map(|r| &url[r])
}

fn userinfo_range(url: &str) -> Option<std::ops::Range<usize>> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[start..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    authority.rfind('@').map(|i| start..start + i)
}

fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 with padding (the `Basic` credential form).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "tok-Abc/123+xyz=";

    fn r() -> Redactor {
        Redactor::default()
            .secret(TOKEN)
            .url("https://alice:p%40ss-word9@proxy.example/client/v4")
    }

    #[test]
    fn a_short_secret_is_masked_as_written_and_leaves_hashes_and_words_alone() {
        let r = Redactor::default().secret("pw");
        let answer = "{\"hash\":\"a7077b\",\"word\":\"PW\",\"secret\":\"pw\"}".to_string();
        let out = r.scrub(answer);
        assert_eq!(
            out,
            "{\"hash\":\"a7077b\",\"word\":\"PW\",\"secret\":\"***\"}"
        );
    }

    #[test]
    fn the_token_goes_in_every_form_it_may_be_echoed_in() {
        let r = r();
        for text in [
            format!("bad token {TOKEN} here"),
            format!("bad token {} here", percent_encode(TOKEN)),
            format!(
                "{{\"message\":\"bad token {}\"}}",
                TOKEN.replace('/', "\\/")
            ),
        ] {
            let out = r.redact(&text);
            assert!(!out.as_str().contains("Abc"), "{out}");
            assert!(out.as_str().contains("bad token ***"), "{out}");
        }
        assert_eq!(r.scrub(format!("x{TOKEN}y")), "x***y");
    }

    #[test]
    fn the_token_goes_in_any_case_and_in_every_encoding() {
        let token = "SekretToken123";
        let r = Redactor::default().secret(token);
        for echoed in [
            "sekrettoken123".to_string(),
            "SEKRETTOKEN123".to_string(),
            base64(token.as_bytes()),
            base64(token.as_bytes()).trim_end_matches('=').to_string(),
            base64(format!("user:{token}").as_bytes()),
            base64(format!(":{token}").as_bytes()),
            base64(format!("ab:{token}:x").as_bytes()),
            base64(format!("{token}:").as_bytes()).replace('+', "-"),
            token.bytes().map(|b| format!("%{b:02X}")).collect(),
            token.bytes().map(|b| format!("{b:02x}")).collect(),
            token.bytes().map(|b| format!("{b:02X}")).collect(),
        ] {
            let out = r.redact(&format!("bad {echoed} here"));
            assert!(
                out.as_str().starts_with("bad ") && out.as_str().contains("***"),
                "{echoed}: {out}"
            );
            for run in base64_forms(token.as_bytes()) {
                assert!(!out.as_str().contains(&run), "{echoed}: {out}");
            }
            assert!(
                !out.as_str().to_lowercase().contains("sekret"),
                "{echoed}: {out}"
            );
        }
        // Special characters, escaped by a JSON, HTML or twice-URL-encoding echo, in any case.
        let r = Redactor::default().secret("a/b&c+d\"e");
        for echoed in [
            "A%2FB%26C%2BD%22E",
            "a%2fb%26c%2bd%22e",
            "a%252Fb%2526c%252Bd%2522e",
            "A\\/B&C+D\\\"E",
            "a/b&amp;c+d&quot;e",
        ] {
            assert_eq!(
                r.redact(&format!("x {echoed} y")).as_str(),
                "x *** y",
                "{echoed}"
            );
        }
        // Ordinary text is left as it was.
        let plain = "upsert batch 1/2 (3 vectors) into blue failed: HTTP 400";
        assert_eq!(r.redact(plain).as_str(), plain);
    }

    #[test]
    fn the_search_without_the_pattern_masks_as_the_pattern_does() {
        let r = Redactor::default()
            .secret("SekretToken123")
            .url("https://alice:p%40ss@h/x");
        let text = format!(
            "a sekrettoken123 b {} c %53%65%6B%72%65%74%54%6F%6B%65%6E%31%32%33 d P@SS e plain",
            base64(b"user:SekretToken123")
        );
        let by_search = r.scrub_by_search(text.clone());
        assert_eq!(by_search, r.scrub(text));
        assert!(
            !by_search.to_lowercase().contains("sekret") && by_search.ends_with(" e plain"),
            "{by_search}"
        );
    }

    #[test]
    fn url_userinfo_is_masked_in_any_text() {
        assert_eq!(
            redact("could not reach https://user:pass@host/v4: refused", &[]),
            "could not reach https://***@host/v4: refused"
        );
        assert_eq!(
            redact("see http://u:p@ss@h.example:8080/x?y", &[]),
            "see http://***@h.example:8080/x?y"
        );
        assert_eq!(
            redact("\"url\":\"ftp://TOKEN@host\"", &[]),
            "\"url\":\"ftp://***@host\""
        );
        // An e-mail address or a URL without userinfo is left alone.
        let plain = "mail me@example.org or see https://example.org/a@b";
        assert_eq!(redact(plain, &[]), plain);
        // The URL's own credentials are secrets too: the password alone, decoded, and as Basic.
        let r = r();
        for leak in [
            "p%40ss-word9",
            "p@ss-word9",
            "alice:p@ss-word9",
            "YWxpY2U6cEBzcy13b3JkOQ==",
        ] {
            let out = r.redact(&format!("echo {leak} end"));
            assert_eq!(out.as_str(), "echo *** end", "{leak}");
        }
    }

    #[test]
    fn authorization_values_are_masked_whoever_they_belong_to() {
        for (text, want) in [
            ("Authorization: Bearer xyz", "Authorization: ***"),
            (
                "authorization: bearer xyz\r\nHost: h",
                "authorization: ***\r\nHost: h",
            ),
            (
                r#"{"authorization":"Bearer xyz","host":"h"}"#,
                r#"{"authorization":"***","host":"h"}"#,
            ),
            (
                r#"{"Authorization": ["Bearer xyz"]}"#,
                r#"{"Authorization": ["***"]}"#,
            ),
            (
                r#"message: "bad header \"Authorization\": \"Bearer xyz\"""#,
                r#"message: "bad header \"Authorization\": \"***\"""#,
            ),
            (
                "Proxy-Authorization: Basic dXNlcjpwYXNz",
                "Proxy-Authorization: ***",
            ),
            (
                "header BEARER abc.def-ghi was refused",
                "header BEARER *** was refused",
            ),
            ("token=Bearer%20abc&x=1", "token=Bearer%20***&x=1"),
            ("Basic dXNlcjpwYXNz", "Basic ***"),
        ] {
            assert_eq!(redact(text, &[]), want, "{text}");
        }
        // Ordinary messages pass unchanged.
        let plain =
            "upsert batch 1/2 (3 vectors) into blue failed: HTTP 400: bad vector (code 40001)";
        assert_eq!(redact(plain, &[]), plain);
    }

    #[test]
    fn redaction_is_idempotent_and_shown_urls_mask_userinfo() {
        let r = r();
        let once = r.redact(&format!(
            "https://a:b@h Authorization: Bearer {TOKEN} Bearer {TOKEN}"
        ));
        assert_eq!(r.redact(once.as_str()), once);
        assert!(!once.as_str().contains(TOKEN), "{once}");
        assert_eq!(shown_url("https://u:p@h/x"), "https://***@h/x");
        assert_eq!(shown_url("u:p@h/x"), "***@h/x");
        assert_eq!(shown_url("https://h/x@y"), "https://h/x@y");
        assert_eq!(shown_base("https://u:p@h/x?k=v#f"), "https://***@h/x?***");
        assert_eq!(base64(b"martin:secret"), "bWFydGluOnNlY3JldA==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(percent_decode("a%40b%4"), "a@b%4");
        assert!(!format!("{r:?}").contains("Abc"));
    }
}
