//! A build with the `workers-ai` embedder against a local API that echoes every request (its URL
//! and headers, the Authorization included) into its answer, on every status and body shape the
//! embedder handles: no output of the build (stdout, stderr, `--json`, files under `out/`) shows
//! the token or the password planted in `ASKZICO_CF_API_BASE`. (The deploy's requests are covered
//! the same way in `tests/deploy.rs`.)
//!
//! Then the remote commands (`query --target`, `deploy --check`, `deploy --dry-run`) against
//! servers that echo the token in another letter case or encoding, trickle their answer, or are
//! not the Cloudflare API at all; and the `ASKZICO_*` knobs refused when out of range.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use serde_json::json;

const TOKEN: &str = "tok-Embed-Secret-5c3b2a19";
const PASSWORD: &str = "pw-Hunter2-EmbedOnly";
const ACCOUNT: &str = "acc123";

/// Answers every request with `status` and a body of `shape` holding the echo of the request.
struct Echo {
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
    port: u16,
    seen: Arc<AtomicUsize>,
}

impl Drop for Echo {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn body(shape: usize, echo: &str) -> String {
    let e = json!(echo);
    match shape {
        0 => json!({"success": false, "errors": [{"code": 5006, "message": e}], "result": null})
            .to_string(),
        1 => json!({"success": true, "errors": [], "result": e}).to_string(),
        2 => json!({"success": true, "result": {"data": e, "shape": [1, 8]}}).to_string(),
        3 => json!({"success": true, "result": {"data": [[e]]}}).to_string(),
        4 => echo.to_string(),
        5 => format!("<html><body><pre>{echo}</pre></body></html>"),
        _ => String::new(),
    }
}
const SHAPES: usize = 7;

fn echo(status: u16, shape: usize) -> Echo {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let (srv, count) = (server.clone(), seen.clone());
    let thread = std::thread::spawn(move || {
        for mut rq in srv.incoming_requests() {
            count.fetch_add(1, Ordering::SeqCst);
            let mut echo = format!("{} {}", rq.method(), rq.url());
            for h in rq.headers() {
                echo.push_str(&format!("\n{}: {}", h.field, h.value));
            }
            let mut sent = String::new();
            let _ = std::io::Read::read_to_string(rq.as_reader(), &mut sent);
            let mut resp =
                tiny_http::Response::from_string(body(shape, &echo)).with_status_code(status);
            resp.add_header(tiny_http::Header::from_bytes("Retry-After", "0").unwrap());
            let _ = rq.respond(resp);
        }
    });
    Echo {
        server,
        thread: Some(thread),
        port,
        seen,
    }
}

/// The sample project with the `workers-ai` embedder.
fn project() -> tempfile::TempDir {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let s = std::fs::read_to_string(&cfg).unwrap().replace(
        "provider = \"hash\"\ndims = 256",
        "provider = \"workers-ai\"\ndims = 8",
    );
    assert!(s.contains("\"workers-ai\""));
    std::fs::write(&cfg, s).unwrap();
    p
}

fn build(dir: &Path, base: &str, json: bool) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .arg("build")
        .env("CLOUDFLARE_API_TOKEN", TOKEN)
        .env("CLOUDFLARE_ACCOUNT_ID", ACCOUNT)
        .env("ASKZICO_CF_API_BASE", base)
        .env("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "300")
        .env("ASKZICO_WORKERS_AI_MAX_ATTEMPTS", "2")
        .env("ASKZICO_WORKERS_AI_RETRY_MS", "1");
    if json {
        cmd.arg("--json");
    }
    run(&mut cmd)
}

fn assert_no_secret(o: &std::process::Output, dir: &Path, what: &str) {
    for (name, text) in [("stdout", stdout(o)), ("stderr", stderr(o))] {
        assert!(
            !text.contains(TOKEN) && !text.contains(PASSWORD) && !text.contains("Hunter2"),
            "{what}: the {name} shows a secret:\n{text}"
        );
    }
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_file() {
            let b = std::fs::read(e.path()).unwrap();
            for s in [TOKEN, PASSWORD] {
                assert!(
                    !b.windows(s.len()).any(|w| w == s.as_bytes()),
                    "{what}: {} holds a secret",
                    e.path().display()
                );
            }
        }
    }
}

#[test]
fn a_workers_ai_build_shows_no_secret_whatever_the_api_answers() {
    let p = project();
    let mut runs = 0;
    for status in [200u16, 400, 401, 403, 404, 413, 429, 500, 503] {
        let shapes: Vec<usize> = if status == 200 {
            (0..SHAPES).collect()
        } else {
            vec![0, 4, 5, 6]
        };
        for shape in shapes {
            let server = echo(status, shape);
            let base = format!(
                "http://askzico:{PASSWORD}@127.0.0.1:{}/client/v4",
                server.port
            );
            let o = build(p.path(), &base, runs % 2 == 1);
            let what = format!("Workers AI answered {status} with shape {shape}");
            assert_eq!(o.status.code(), Some(1), "{what}: {}", stderr(&o));
            assert!(server.seen.load(Ordering::SeqCst) > 0, "{what}: no request");
            assert_no_secret(&o, p.path(), &what);
            runs += 1;
        }
    }
    assert_eq!(runs, 7 + 8 * 4);
}

#[test]
fn a_workers_ai_build_never_shows_the_url_password_of_a_bad_or_unreachable_base() {
    let p = project();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let o = build(
        p.path(),
        &format!("ftp://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4"),
        false,
    );
    assert_eq!(o.status.code(), Some(2), "a bad knob is a usage error");
    assert!(
        stderr(&o).contains("\"ftp://***@127.0.0.1:"),
        "{}",
        stderr(&o)
    );
    assert_no_secret(&o, p.path(), "the URL check");
    for json in [false, true] {
        let o = build(
            p.path(),
            &format!("http://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4"),
            json,
        );
        assert_eq!(o.status.code(), Some(1));
        let shown = format!("{}{}", stdout(&o), stderr(&o));
        assert!(
            shown.contains(&format!(
                "could not reach http://***@127.0.0.1:{port}/client/v4"
            )),
            "{shown}"
        );
        assert_no_secret(&o, p.path(), "an unreachable API");
    }
}

#[test]
fn a_workers_ai_build_against_a_silent_api_fails_at_the_idle_timeout() {
    let p = project();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = l.incoming().collect();
        drop(held);
    });
    let start = std::time::Instant::now();
    let o = build(
        p.path(),
        &format!("http://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4"),
        false,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("failed after 2 attempts: timed out: no response from http://***@127.0.0.1:")
            && err.contains("/client/v4 for 0.3 s"),
        "{err}"
    );
    assert!(
        err.contains("; retrying in"),
        "each retry is printed: {err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert_no_secret(&o, p.path(), "a silent API");
}

const DEPLOY_TOKEN: &str = "SekretToken123";
const TARGET: &str = "\n[deploy.prod]\naccount_id = \"acc123\"\nindexes = [\"corpus-blue\", \"corpus-green\"]\nkv_namespace_id = \"ns1\"\nprefix = \"zico/\"\n";

/// The sample project (hash embedder) with deploy target `prod`, built.
fn deploy_project() -> tempfile::TempDir {
    let p = sample_project();
    let cfg = p.path().join("corpus.toml");
    let mut s = std::fs::read_to_string(&cfg).unwrap();
    s.push_str(TARGET);
    std::fs::write(&cfg, s).unwrap();
    let o = run(bin().current_dir(p.path()).arg("build"));
    assert!(o.status.success(), "{}", stderr(&o));
    p
}

/// `askzico ARGS` against `base` with the deploy token, one attempt per request.
fn remote(dir: &Path, base: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .args(args)
        .env_remove("CLOUDFLARE_ACCOUNT_ID")
        .env("CLOUDFLARE_API_TOKEN", DEPLOY_TOKEN)
        .env("ASKZICO_CF_API_BASE", base)
        .env("ASKZICO_DEPLOY_MAX_ATTEMPTS", "1")
        .env("ASKZICO_DEPLOY_RETRY_MS", "1")
        .envs(env.iter().copied());
    run(&mut cmd)
}

/// A server answering every request with `status` and `body`.
fn fixed(status: u16, body: String) -> Echo {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
    let port = server.server_addr().to_ip().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let (srv, count) = (server.clone(), seen.clone());
    let thread = std::thread::spawn(move || {
        for mut rq in srv.incoming_requests() {
            count.fetch_add(1, Ordering::SeqCst);
            let mut sent = String::new();
            let _ = std::io::Read::read_to_string(rq.as_reader(), &mut sent);
            let _ =
                rq.respond(tiny_http::Response::from_string(body.clone()).with_status_code(status));
        }
    });
    Echo {
        server,
        thread: Some(thread),
        port,
        seen,
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                A[(n >> (18 - 6 * i)) as usize & 63] as char
            } else {
                '='
            });
        }
    }
    out
}

/// The token as a server may echo it: in another case, percent-encoded, hex, base64 of the
/// token and of `user:token`.
fn echoed_token_forms() -> Vec<String> {
    vec![
        DEPLOY_TOKEN.to_lowercase(),
        DEPLOY_TOKEN.to_uppercase(),
        DEPLOY_TOKEN.bytes().map(|b| format!("%{b:02x}")).collect(),
        DEPLOY_TOKEN.bytes().map(|b| format!("{b:02x}")).collect(),
        base64(DEPLOY_TOKEN.as_bytes()),
        base64(format!("askzico:{DEPLOY_TOKEN}").as_bytes()),
        base64(format!(":{DEPLOY_TOKEN}").as_bytes()),
    ]
}

#[test]
fn a_token_echoed_in_another_case_or_encoding_is_never_shown_by_remote_commands() {
    let p = deploy_project();
    let forms = echoed_token_forms();
    let echo = forms
        .iter()
        .map(|f| format!("bad {f}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut runs = 0;
    for (status, body) in [
        (
            400u16,
            json!({"success": false, "errors": [{"code": 10000, "message": echo}], "result": null})
                .to_string(),
        ),
        (403, echo.clone()),
        (500, format!("<html><pre>{echo}</pre></html>")),
        (200, echo.clone()),
        (
            200,
            json!({"version": echo, "index": echo, "layout": 2}).to_string(),
        ),
    ] {
        let server = fixed(status, body);
        let base = format!("http://127.0.0.1:{}/client/v4", server.port);
        for args in [
            &["query", "--target", "prod", "النيل"][..],
            &["deploy", "--target", "prod", "--check"][..],
            &["deploy", "--target", "prod", "--dry-run"][..],
        ] {
            let o = remote(p.path(), &base, args, &[]);
            let what = format!("{args:?} against HTTP {status}");
            assert_ne!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
            assert!(server.seen.load(Ordering::SeqCst) > 0, "{what}: no request");
            let shown = format!("{}{}", stdout(&o), stderr(&o));
            // An error answer is shown (redacted); a success answer is only parsed.
            assert!(
                status == 200 || shown.contains("bad ***"),
                "{what}: the echo was not shown at all:\n{shown}"
            );
            for f in &forms {
                assert!(
                    !shown.to_lowercase().contains(&f.to_lowercase()),
                    "{what}: shows {f}:\n{shown}"
                );
            }
            assert!(
                !shown.to_lowercase().contains("sekrettoken"),
                "{what}:\n{shown}"
            );
            runs += 1;
        }
    }
    assert_eq!(runs, 15);
}

/// A bad value of a knob is a usage error naming the variable, its value and what it accepts,
/// before anything is read or sent; 0 is not "no timeout".
#[test]
fn a_knob_out_of_range_is_a_usage_error_naming_it() {
    common::test_hooks();
    let p = deploy_project();
    let server = fixed(500, String::new());
    let base = format!("http://127.0.0.1:{}/client/v4", server.port);
    for (name, value, args, accepted) in [
        (
            "ASKZICO_DEPLOY_MAX_ATTEMPTS",
            "abc",
            &["deploy", "--target", "prod", "--dry-run"][..],
            "expected a whole number of attempts from 1 to 100",
        ),
        (
            "ASKZICO_DEPLOY_MAX_ATTEMPTS",
            "0",
            &["deploy", "--target", "prod", "--check"][..],
            "expected a whole number of attempts from 1 to 100",
        ),
        (
            "ASKZICO_HTTP_IDLE_TIMEOUT_MS",
            "0",
            &["query", "--target", "prod", "النيل"][..],
            "expected a whole number of ms from 1 to 86400000",
        ),
        (
            "ASKZICO_HTTP_DEADLINE_MS",
            "1e3",
            &["query", "--target", "prod", "النيل"][..],
            "expected a whole number of ms from 1 to 86400000",
        ),
        (
            "ASKZICO_DEPLOY_WAIT_SECS",
            "-1",
            &["deploy", "--target", "prod"][..],
            "expected a whole number of s from 0 to 86400",
        ),
        (
            "ASKZICO_DEPLOY_MAX_KV_PAIRS",
            "20000",
            &["deploy", "--target", "prod", "--dry-run"][..],
            "expected a whole number of pairs from 1 to 10000",
        ),
        (
            "ASKZICO_FAIL_AFTER_WRITES",
            "some",
            &["build"][..],
            "expected a whole number of writes from 0 to",
        ),
        (
            "ASKZICO_STAGE_TIMES",
            "yes",
            &["build"][..],
            "expected 0 or 1",
        ),
    ] {
        let o = remote(p.path(), &base, args, &[(name, value)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}={value}: {err}");
        assert!(
            err.contains(&format!("{name}=\"{value}\" is not accepted: {accepted}")),
            "{name}={value}: {err}"
        );
    }
    assert_eq!(server.seen.load(Ordering::SeqCst), 0, "nothing is sent");
}

/// Accepts connections, reads the request and answers with headers announcing `len` bytes, then
/// one byte every 20 ms (well inside the idle timeout): the answer would take `len` × 20 ms.
fn trickle(len: usize) -> (u16, Arc<AtomicUsize>) {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let sent = Arc::new(AtomicUsize::new(0));
    let count = sent.clone();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let count = count.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n");
                if s.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for _ in 0..len {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    if s.write_all(b"{").is_err() {
                        return;
                    }
                    count.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    (port, sent)
}

/// A server that trickles its answer a byte at a time (never idle long enough for the idle
/// timeout) no longer holds `query --target`: the request ends at its deadline, saying on stderr
/// while it runs what it waits for.
#[test]
fn a_trickling_server_is_cut_at_the_request_deadline_with_progress_meanwhile() {
    let p = deploy_project();
    let (port, sent) = trickle(1_000_000);
    let base = format!("http://127.0.0.1:{port}/client/v4");
    let o = remote(
        p.path(),
        &base,
        &["query", "--target", "prod", "النيل"],
        &[
            ("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "5000"),
            ("ASKZICO_HTTP_DEADLINE_MS", "1200"),
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "timed out: the answer from {base} took longer than 1.2 s in all (ASKZICO_HTTP_DEADLINE_MS sets the limit)"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  reading KV key zico/current: still waiting for {base} after "
        )) && err.contains("(gives up after 1.2 s)"),
        "{err}"
    );
    // Bytes kept coming, and the answer was left far from whole.
    let got = sent.load(Ordering::SeqCst);
    assert!(got > 0 && got < 1_000_000, "{got}");
}

/// A base that is not the Cloudflare API's root: every answer a 404 page. It is refused before
/// any plan (never "nothing is deployed" with a plan to write the index that may be live); a
/// base with a query string is refused before any request.
#[test]
fn an_api_base_that_is_not_the_api_is_refused_before_any_plan() {
    let p = deploy_project();
    for body in ["404 page not found".to_string(), String::new(), "<html><h1>Not Found</h1></html>".into(),
        json!({"success": false, "errors": [{"code": 7003, "message": "Could not route to /client/v4/x, perhaps your object identifier is invalid?"}], "result": null}).to_string()]
    {
        let server = fixed(404, body.clone());
        let base = format!("http://127.0.0.1:{}/wrong/path", server.port);
        for args in [
            &["deploy", "--target", "prod", "--dry-run"][..],
            &["deploy", "--target", "prod", "--check"][..],
            &["query", "--target", "prod", "النيل"][..],
        ] {
            let o = remote(p.path(), &base, args, &[]);
            let (out, err) = (stdout(&o), stderr(&o));
            let what = format!("{args:?} with 404 {body:?}");
            assert_eq!(o.status.code(), Some(1), "{what}: {err}");
            assert!(
                err.contains(&format!(
                    "reading KV key zico/current: {base} answered HTTP 404"
                )) && err.contains("which is not an answer of the Cloudflare API; check ASKZICO_CF_API_BASE"),
                "{what}: {err}"
            );
            assert!(!err.contains("nothing is deployed"), "{what}: {err}");
            assert!(
                !out.contains("corpus-blue") && !err.contains("would"),
                "{what}: a plan was made:\n{out}\n{err}"
            );
        }
        assert_eq!(server.seen.load(Ordering::SeqCst), 3, "one request per command");
    }
    let server = fixed(404, String::new());
    let o = remote(
        p.path(),
        &format!("http://127.0.0.1:{}/client/v4?account=x", server.port),
        &["deploy", "--target", "prod", "--dry-run"],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/client/v4?***\" has a query string or a fragment"),
        "{}",
        stderr(&o)
    );
    assert_eq!(server.seen.load(Ordering::SeqCst), 0);
}

/// A 404 of the API itself that is not "key not found" (a namespace that does not exist) is an
/// error naming what the API said, not "nothing is deployed".
#[test]
fn a_kv_404_other_than_key_not_found_is_an_error_not_an_absent_pointer() {
    let p = deploy_project();
    let server = fixed(
        404,
        json!({"success": false, "errors": [{"code": 10013, "message": "get: 'namespace not found'"}], "messages": [], "result": null}).to_string(),
    );
    let base = format!("http://127.0.0.1:{}/client/v4", server.port);
    for args in [
        &["deploy", "--target", "prod", "--dry-run"][..],
        &["query", "--target", "prod", "النيل"][..],
    ] {
        let o = remote(p.path(), &base, args, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("reading KV key zico/current failed: HTTP 404: get: 'namespace not found' (code 10013)"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("nothing is deployed"), "{args:?}: {err}");
    }
    // KV's own "key not found" still reads as nothing deployed.
    let server = fixed(
        404,
        json!({"success": false, "errors": [{"code": 10009, "message": "get: 'key not found'"}], "messages": [], "result": null}).to_string(),
    );
    let base = format!("http://127.0.0.1:{}/client/v4", server.port);
    let o = remote(
        p.path(),
        &base,
        &["query", "--target", "prod", "النيل"],
        &[],
    );
    assert!(stderr(&o).contains("nothing is deployed"), "{}", stderr(&o));
}
