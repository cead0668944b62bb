//! The shared request loop against local servers: one that echoes every request header into its
//! answer, one that accepts connections and never answers, one that reads an upload slowly.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::*;

const TOKEN: &str = "tok-Http-Secret-9f8e7d";
const PASSWORD: &str = "pw-Hunter2-Secret";

/// A tiny_http server answering every request with `respond(request number, echo)`, where the
/// echo holds the request line and every header the client sent (the Authorization included).
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

fn echo(respond: impl Fn(usize, &str) -> (u16, String) + Send + 'static) -> Echo {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1:0"));
    let port = server.server_addr().to_ip().expect("ip listener").port();
    let seen = Arc::new(AtomicUsize::new(0));
    let (srv, count) = (server.clone(), seen.clone());
    let thread = std::thread::spawn(move || {
        for mut rq in srv.incoming_requests() {
            let mut echo = format!("{} {}", rq.method(), rq.url());
            for h in rq.headers() {
                echo.push_str(&format!("\n{}: {}", h.field, h.value));
            }
            let mut body = String::new();
            let _ = rq.as_reader().read_to_string(&mut body);
            let n = count.fetch_add(1, Ordering::SeqCst);
            let (status, text) = respond(n, &echo);
            let _ = rq.respond(tiny_http::Response::from_string(text).with_status_code(status));
        }
    });
    Echo {
        server,
        thread: Some(thread),
        port,
        seen,
    }
}

fn api(base: &str, timeouts: Timeouts, attempts: u32) -> Api {
    Api::new(
        BaseUrl::parse(Some(base)).unwrap(),
        TOKEN.into(),
        timeouts,
        Retry {
            max_attempts: attempts,
            base: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
        },
    )
}

fn fast() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(5),
        idle: Duration::from_millis(300),
        ..Default::default()
    }
}

/// Every body shape a client handles, each carrying the echo.
fn shapes(echo: &str) -> Vec<String> {
    let quoted = serde_json::to_string(echo).unwrap();
    vec![
        format!(r#"{{"success":false,"errors":[{{"code":1,"message":{quoted}}}]}}"#),
        format!(r#"{{"success":true,"result":{quoted}}}"#),
        format!(r#"{{"success":true,"result":{{"echo":{quoted}}}}}"#),
        echo.to_string(),
        format!("<html><body><pre>{echo}</pre></body></html>"),
        // The bare token where a 200-char snippet would cut it in two.
        format!("{}{TOKEN} and more", "x".repeat(190)),
    ]
}

#[test]
fn no_answer_of_an_echoing_server_carries_the_token_or_the_url_password() {
    for status in [
        200u16, 201, 400, 401, 403, 404, 408, 409, 429, 500, 502, 503,
    ] {
        for shape in 0..shapes("").len() {
            let server = echo(move |_, echo| (status, shapes(echo)[shape].clone()));
            let base = format!(
                "http://askzico:{PASSWORD}@127.0.0.1:{}/client/v4",
                server.port
            );
            let api = api(&base, fast(), 2);
            let got = match api.send("POST", &api.base().join("x"), None, Some(b"{}"), "probe") {
                Ok((s, text)) => {
                    assert_eq!(s, status);
                    // The body a caller parses: scrubbed of the token, otherwise intact.
                    assert!(text.contains("***") && !text.contains(TOKEN), "{text}");
                    api.redact(&format!("probe failed: HTTP {s}{}", cf_messages(&text)))
                        .to_string()
                }
                Err(e) => {
                    assert!(matches!(status, 408 | 429 | 500..=599), "{status}: {e}");
                    e.to_string()
                }
            };
            assert!(
                !got.contains(&TOKEN[..8]) && !got.contains(PASSWORD) && !got.contains("Hunter2"),
                "{status}/{shape}: {got}"
            );
            assert!(got.contains("HTTP"), "{got}");
        }
    }
}

#[test]
fn transport_errors_show_the_base_url_masked() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let base = format!("http://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4");
    let api = api(&base, fast(), 2);
    let e = api
        .send("GET", &api.base().join("x"), None, None, "probe")
        .unwrap_err();
    assert!(
        e.as_str().contains(&format!(
            "probe failed after 2 attempts: could not reach http://***@127.0.0.1:{port}/client/v4"
        )),
        "{e}"
    );
    assert!(!format!("{api:?}").contains(PASSWORD) && !format!("{api:?}").contains(TOKEN));
    // The URL check masks it too.
    let bad = BaseUrl::parse(Some(&format!("ftp://askzico:{PASSWORD}@h/x"))).unwrap_err();
    assert_eq!(
        bad,
        "ASKZICO_CF_API_BASE \"ftp://***@h/x\" is not an http(s) URL"
    );
    assert_eq!(
        BaseUrl::parse(Some(" https://a:b@h/v4/ "))
            .unwrap()
            .to_string(),
        "https://***@h/v4"
    );
    assert_eq!(
        BaseUrl::parse(None).unwrap().join("accounts"),
        format!("{DEFAULT_API_BASE}/accounts")
    );
}

/// Accepts connections and holds them, never reading or answering.
fn silent_server() -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in l.incoming() {
            count.fetch_add(1, Ordering::SeqCst);
            held.push(c);
        }
    });
    (port, accepted)
}

#[test]
fn a_server_that_never_answers_fails_each_attempt_at_the_idle_timeout() {
    let (port, accepted) = silent_server();
    let api = api(&format!("http://127.0.0.1:{port}/v4"), fast(), 3);
    let start = Instant::now();
    let e = api
        .send(
            "GET",
            &api.base().join("x"),
            None,
            None,
            "reading KV key p/current",
        )
        .unwrap_err();
    let took = start.elapsed();
    assert!(
        e.as_str().starts_with(&format!(
            "reading KV key p/current failed after 3 attempts: timed out: no response from http://127.0.0.1:{port}/v4 for 0.3 s"
        )),
        "{e}"
    );
    let waiting = Instant::now();
    while accepted.load(Ordering::SeqCst) < 3 && waiting.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

#[test]
fn a_response_that_stops_mid_body_times_out() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in l.incoming() {
            let mut c = c.unwrap();
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"result\":");
            held.push(c);
        }
    });
    let api = api(&format!("http://127.0.0.1:{port}/v4"), fast(), 1);
    let e = api
        .send("GET", &api.base().join("x"), None, None, "probe")
        .unwrap_err();
    assert!(
        e.as_str()
            .contains("HTTP 200, and reading the response failed: timed out: the response from")
            && e.as_str().contains("stopped for 0.3 s"),
        "{e}"
    );
}

#[test]
fn an_upload_that_keeps_moving_is_not_cut_by_the_idle_timeout() {
    // The server reads the first 8 MB in pieces of at most 16 KB with a 5 ms pause after each
    // (at least 2.4 s in all, over two idle timeouts, but never a pause near one: the idle
    // timeout is 1 s, so a loaded machine's scheduling hiccups do not reach it), then the rest
    // at full speed. The body is far larger than the kernel's socket buffers, so the client is
    // still writing through the slow part. (Bytes the kernel has buffered count as sent: the idle
    // timer measures the socket, and a buffer drains in a second or two on a real link.)
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    small_receive_buffer(&l);
    let port = l.local_addr().unwrap().port();
    let (total, slow) = (24_000_000usize, 8_000_000usize);
    let server = std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            c.read_exact(&mut byte).unwrap();
            head.push(byte[0]);
        }
        let mut got = 0;
        let mut buf = vec![0u8; 1 << 20];
        let start = Instant::now();
        while got < total {
            let want = if got < slow { 16 * 1024 } else { buf.len() };
            let n = c.read(&mut buf[..want]).unwrap();
            assert!(n > 0, "the client gave up after {got} bytes");
            got += n;
            if got < slow {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let took = start.elapsed();
        let body = r#"{"success":true,"result":{}}"#;
        write!(
            c,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        took
    });
    let api = api(
        &format!("http://127.0.0.1:{port}/v4"),
        Timeouts {
            connect: Duration::from_secs(5),
            idle: Duration::from_millis(1000),
            ..Default::default()
        },
        1,
    );
    let body = vec![b'x'; total];
    let r = api.send("PUT", &api.base().join("x"), None, Some(&body), "upload");
    assert_eq!(r.map(|(s, _)| s), Ok(200));
    let took = server.join().unwrap();
    assert!(
        took > Duration::from_millis(2000),
        "the upload took {took:?}: not several idle timeouts"
    );
}

fn small_receive_buffer(l: &TcpListener) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 8 * 1024;
    // SAFETY: a valid socket descriptor and a c_int option value of the stated size.
    let rc = unsafe {
        libc::setsockopt(
            l.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&size as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0);
}

#[test]
fn the_agent_has_connect_idle_and_overall_timeouts() {
    let t = Timeouts::default();
    assert_eq!(
        (t.connect, t.idle, t.deadline),
        (
            Duration::from_secs(15),
            Duration::from_secs(60),
            Duration::from_secs(300)
        )
    );
    let api = api(DEFAULT_API_BASE, t, 1);
    let c = api.agent.config();
    assert_eq!(c.timeout_per_read(), Some(t.idle));
    assert_eq!(c.timeout_per_write(), Some(t.idle));
    let all = c.timeouts();
    assert_eq!(all.connect, Some(t.connect));
    assert_eq!(all.global, Some(t.deadline));
    let env = |n: &str| match n {
        "ASKZICO_HTTP_IDLE_TIMEOUT_MS" => Some("250".to_string()),
        "ASKZICO_HTTP_DEADLINE_MS" => Some("4000".to_string()),
        _ => None,
    };
    assert_eq!(
        t.with_env(env),
        Ok(Timeouts {
            connect: Duration::from_secs(15),
            idle: Duration::from_millis(250),
            deadline: Duration::from_secs(4),
        })
    );
}

#[test]
fn a_timeout_of_zero_or_not_a_number_is_refused_not_taken_as_no_limit() {
    for (name, value) in [
        ("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "0"),
        ("ASKZICO_HTTP_CONNECT_TIMEOUT_MS", "0"),
        ("ASKZICO_HTTP_DEADLINE_MS", "0"),
        ("ASKZICO_HTTP_DEADLINE_MS", "soon"),
        ("ASKZICO_HTTP_IDLE_TIMEOUT_MS", "-5"),
    ] {
        let env = |n: &str| (n == name).then(|| value.to_string());
        let err = Timeouts::default().with_env(env).unwrap_err();
        assert!(
            err.starts_with(&format!(
                "{name}={value:?} is not accepted: expected a whole number of ms from 1 to "
            )),
            "{err}"
        );
    }
}

#[test]
fn a_base_with_a_query_or_fragment_is_refused() {
    for base in [
        "https://api.cloudflare.com/client/v4?x=1",
        "https://api.cloudflare.com/client/v4#top",
        "http://127.0.0.1:9/?",
    ] {
        let err = BaseUrl::parse(Some(base)).unwrap_err();
        assert!(err.contains("has a query string or a fragment"), "{err}");
        assert!(!err.contains("x=1"), "{err}");
    }
    assert!(BaseUrl::parse(Some("https://api.cloudflare.com/client/v4/")).is_ok());
}

/// A server that answers at once with headers announcing `len` bytes, then sends one byte every
/// `every` (each byte well inside any idle timeout): the answer never ends in time.
fn trickle(len: usize, every: Duration) -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
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
                    std::thread::sleep(every);
                    if s.write_all(b"x").is_err() {
                        return;
                    }
                    count.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    (port, sent)
}

#[test]
fn a_trickling_answer_is_cut_at_the_deadline_not_held_forever() {
    let (port, sent) = trickle(100_000, Duration::from_millis(20));
    let api = api(
        &format!("http://127.0.0.1:{port}/v4"),
        Timeouts {
            connect: Duration::from_secs(5),
            idle: Duration::from_secs(5),
            deadline: Duration::from_millis(600),
        },
        1,
    );
    let err = api
        .send("GET", &api.base().join("x"), None, None, "probe")
        .unwrap_err();
    assert!(
        err.as_str().starts_with(
            "probe failed after 1 attempt: HTTP 200, and reading the response failed: "
        ) && err.as_str().ends_with(&format!(
            "timed out: the answer from http://127.0.0.1:{port}/v4 took longer than 0.6 s in \
                 all (ASKZICO_HTTP_DEADLINE_MS sets the limit)"
        )),
        "{err}"
    );
    // Bytes did come (the idle timeout never ran out), and far fewer than announced.
    let got = sent.load(Ordering::SeqCst);
    assert!(got > 0 && got < 100_000, "{got}");
    assert_eq!(
        Timeouts {
            deadline: Duration::from_secs(300),
            ..Timeouts::default()
        }
        .progress_every(),
        Duration::from_secs(15)
    );
    assert_eq!(
        Timeouts {
            deadline: Duration::from_millis(600),
            ..Timeouts::default()
        }
        .progress_every(),
        Duration::from_millis(150)
    );
}

#[test]
fn retries_are_printed_and_counted() {
    let server = echo(|n, _| {
        if n < 2 {
            (
                503,
                r#"{"success":false,"errors":[{"code":7,"message":"busy"}]}"#.into(),
            )
        } else {
            (200, r#"{"success":true,"result":null}"#.into())
        }
    });
    let api = api(&format!("http://127.0.0.1:{}/v4", server.port), fast(), 3);
    let r = api.send("GET", &api.base().join("x"), None, None, "probe");
    assert_eq!(r.map(|(s, _)| s), Ok(200));
    assert_eq!(server.seen.load(Ordering::SeqCst), 3);
}

#[test]
fn server_text_is_shown_on_one_line_without_control_characters() {
    let body =
        r#"{"success":false,"errors":[{"code":9,"message":"line one\nline two\u001b[2J  end"}]}"#;
    assert_eq!(cf_messages(body), ": line one line two [2J end (code 9)");
    assert_eq!(
        cf_messages("<h1>\r\nBad\tGateway</h1>\n"),
        ": <h1> Bad Gateway</h1>"
    );
    assert_eq!(cf_messages(""), "");
    let long = format!("{}\n{}", "a".repeat(150), "b".repeat(100));
    let s = snippet(&long);
    assert!(
        s.ends_with('…') && !s.contains('\n') && s.chars().count() == 201,
        "{s}"
    );
}

#[test]
fn retry_after_parsing_and_backoff() {
    assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
    assert_eq!(parse_retry_after(" 0 "), Some(Duration::ZERO));
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
        Some(Duration::ZERO)
    ); // in the past
    let future = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
    let d = parse_retry_after(&future).unwrap();
    assert!(
        d > Duration::from_secs(25) && d <= Duration::from_secs(30),
        "{d:?}"
    );
    assert_eq!(parse_retry_after("soon"), None);
    for attempt in 1..30 {
        let d = backoff(attempt, Duration::from_millis(100), Duration::from_secs(5));
        let full = Duration::from_millis(100)
            .saturating_mul(1 << (attempt - 1).min(20))
            .min(Duration::from_secs(5));
        assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
    }
    assert!(is_loopback("http://127.0.0.1:8080/client/v4"));
    assert!(is_loopback("http://localhost/x"));
    assert!(!is_loopback("https://api.cloudflare.com/client/v4"));
    assert!(!is_loopback("http://127.0.0.1.evil.example/"));
    assert!(is_loopback("http://u:p@127.0.0.1:9/x"));
    assert!(!is_loopback("http://127.0.0.1@evil.example/x"));
}
