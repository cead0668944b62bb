//! A build with the `workers-ai` embedder against a local API that echoes every request (its URL
//! and headers, the Authorization included) into its answer, on every status and body shape the
//! embedder handles: no output of the build (stdout, stderr, `--json`, files under `out/`) shows
//! the token or the password planted in `ASKZICO_CF_API_BASE`. (The deploy's requests are covered
//! the same way in `tests/deploy.rs`.)

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
    assert_eq!(o.status.code(), Some(1));
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
