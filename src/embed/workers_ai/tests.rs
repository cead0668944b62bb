//! Workers AI against a local tiny_http server on 127.0.0.1 that checks the documented request
//! shape and answers the documented v4 envelope.

use super::*;
use crate::embed::HashEmbedder;
use crate::http::DEFAULT_API_BASE;
use std::sync::Arc;
use std::time::Instant;

const TOKEN: &str = "tok-SECRET-4f9a1c77e2";
const ACCOUNT: &str = "0123456789abcdef0123456789abcdef";
const MODEL: &str = "@cf/baai/bge-m3";
const DIMS: usize = 8;

struct Reply {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn ok(texts: &[String]) -> Reply {
        Reply::ok_dims(texts, DIMS)
    }
    fn ok_dims(texts: &[String], dims: usize) -> Reply {
        let e = HashEmbedder::new(dims);
        let data: Vec<Vec<f32>> = texts.iter().map(|t| e.embed(t)).collect();
        let body = serde_json::json!({
            "result": {"shape": [texts.len(), dims], "data": data, "pooling": "cls"},
            "success": true, "errors": [], "messages": []
        });
        Reply {
            status: 200,
            body: body.to_string(),
            headers: vec![],
        }
    }
    fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: body.to_string(),
            headers: vec![],
        }
    }
}

/// What the server saw in one request.
#[derive(Debug, Clone)]
struct Seen {
    texts: Vec<String>,
    auth: String,
    problems: Vec<String>,
}

struct TestServer {
    server: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl TestServer {
    /// `respond(i, texts, auth)` answers the i-th well-formed request (0-based).
    fn start(respond: impl Fn(usize, &[String], &str) -> Reply + Send + 'static) -> TestServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1:0"));
        let port = server.server_addr().to_ip().expect("ip listener").port();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (srv, log) = (server.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            let expected_path = format!("/client/v4/accounts/{ACCOUNT}/ai/run/{MODEL}");
            for mut rq in srv.incoming_requests() {
                let mut problems = vec![];
                if *rq.method() != tiny_http::Method::Post {
                    problems.push(format!("method {}", rq.method()));
                }
                if rq.url() != expected_path {
                    problems.push(format!("path {}", rq.url()));
                }
                let header = |name: &'static str| {
                    rq.headers()
                        .iter()
                        .find(|h| h.field.equiv(name))
                        .map(|h| h.value.as_str().to_string())
                };
                let auth = header("Authorization").unwrap_or_default();
                if auth != format!("Bearer {TOKEN}") {
                    problems.push("Authorization is not `Bearer <token>`".into());
                }
                if !header("Content-Type").is_some_and(|v| v.starts_with("application/json")) {
                    problems.push("Content-Type is not application/json".into());
                }
                let mut raw = String::new();
                let _ = std::io::Read::read_to_string(rq.as_reader(), &mut raw);
                let mut texts = vec![];
                match serde_json::from_str::<serde_json::Value>(&raw) {
                    Ok(body) => {
                        match body.get("text").and_then(|t| t.as_array()) {
                            Some(items) if (1..=100).contains(&items.len()) => {
                                for t in items {
                                    match t.as_str() {
                                        Some(s) => texts.push(s.to_string()),
                                        None => problems.push("text item is not a string".into()),
                                    }
                                }
                            }
                            Some(items) => {
                                problems.push(format!("{} texts in one request", items.len()))
                            }
                            None => problems.push("no `text` array".into()),
                        }
                        if !body.get("truncate_inputs").is_some_and(|v| v.is_boolean()) {
                            problems.push("truncate_inputs is not a boolean".into());
                        }
                    }
                    Err(e) => problems.push(format!("body is not JSON: {e}")),
                }
                let index = {
                    let mut log = log.lock().unwrap();
                    log.push(Seen {
                        texts: texts.clone(),
                        auth: auth.clone(),
                        problems: problems.clone(),
                    });
                    log.iter().filter(|s| s.problems.is_empty()).count() - 1
                };
                let reply = if problems.is_empty() {
                    respond(index, &texts, &auth)
                } else {
                    Reply::status(400, &format!("{problems:?}"))
                };
                let mut resp =
                    tiny_http::Response::from_string(reply.body).with_status_code(reply.status);
                resp.add_header(
                    tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
                );
                for (k, v) in reply.headers {
                    resp.add_header(tiny_http::Header::from_bytes(k, v.as_bytes()).unwrap());
                }
                let _ = rq.respond(resp);
            }
        });
        TestServer {
            server,
            thread: Some(thread),
            base: format!("http://127.0.0.1:{port}/client/v4"),
            seen,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        let seen = self.seen.lock().unwrap().clone();
        for s in &seen {
            assert!(
                s.problems.is_empty(),
                "request shape problems: {:?}",
                s.problems
            );
        }
        seen
    }
}

fn config() -> WorkersAiConfig {
    WorkersAiConfig {
        model: MODEL.into(),
        dims: DIMS,
        concurrency: 1,
        max_attempts: 3,
        timeouts: crate::http::Timeouts {
            connect: Duration::from_secs(5),
            idle: Duration::from_secs(10),
            ..Default::default()
        },
        retry_base: Duration::from_millis(1),
        ..Default::default()
    }
}

fn client(base: &str, config: WorkersAiConfig) -> WorkersAi {
    let base = base.to_string();
    WorkersAi::new_with_env(config, move |name| match name {
        "CLOUDFLARE_API_TOKEN" => Some(TOKEN.into()),
        "CLOUDFLARE_ACCOUNT_ID" => Some(ACCOUNT.into()),
        "ASKZICO_CF_API_BASE" => Some(base.clone()),
        _ => None,
    })
    .expect("valid config")
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("نص رقم {i} عن بيت لحم")).collect()
}

fn assert_close(got: &[Vec<f32>], texts: &[String]) {
    let e = HashEmbedder::new(DIMS);
    assert_eq!(got.len(), texts.len());
    for (v, t) in got.iter().zip(texts) {
        let want = e.embed(t);
        assert!(
            v.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6),
            "vector for {t:?}"
        );
    }
}

#[test]
fn success_with_batching_250_texts_three_requests_in_order() {
    let server = TestServer::start(|_, texts, _| Reply::ok(texts));
    let wai = client(
        &server.base,
        WorkersAiConfig {
            concurrency: 2,
            ..config()
        },
    );
    let input = texts(250);
    let refs: Vec<&str> = input.iter().map(|s| s.as_str()).collect();
    let out = wai.embed_batch(&refs).unwrap();
    assert_close(&out, &input);
    let seen = server.seen();
    let mut sizes: Vec<usize> = seen.iter().map(|s| s.texts.len()).collect();
    sizes.sort();
    assert_eq!(sizes, vec![50, 100, 100]);
    assert!(seen.iter().all(|s| s.auth == format!("Bearer {TOKEN}")));
    // Sequential client, same result.
    let wai1 = client(&server.base, config());
    assert_eq!(wai1.embed_batch(&refs).unwrap(), out);
    assert_eq!(wai1.embed_batch(&[]).unwrap(), Vec::<Vec<f32>>::new());
}

#[test]
fn retry_after_on_429_is_honoured_then_success() {
    let server = TestServer::start(|i, texts, _| {
        if i == 0 {
            Reply {
                status: 429,
                body: r#"{"success":false,"errors":[{"code":3040,"message":"Capacity temporarily exceeded"}]}"#.into(),
                headers: vec![("Retry-After", "1".into())],
            }
        } else {
            Reply::ok(texts)
        }
    });
    let wai = client(&server.base, config()); // backoff base is 1 ms: only Retry-After explains a 1 s wait
    let input = texts(3);
    let refs: Vec<&str> = input.iter().map(|s| s.as_str()).collect();
    let start = Instant::now();
    let out = wai.embed_batch(&refs).unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(950),
        "waited only {:?}",
        start.elapsed()
    );
    assert_close(&out, &input);
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn server_error_then_success() {
    let server = TestServer::start(|i, texts, _| {
        if i == 0 {
            Reply::status(500, "internal error")
        } else {
            Reply::ok(texts)
        }
    });
    let wai = client(&server.base, config());
    let out = wai.embed_batch(&["أ ب", "ج د"]).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn persistent_server_error_fails_after_bounded_attempts() {
    let server = TestServer::start(|_, _, _| {
        Reply::status(
            503,
            r#"{"success":false,"errors":[{"code":1000,"message":"upstream unavailable"}]}"#,
        )
    });
    let wai = client(
        &server.base,
        WorkersAiConfig {
            max_attempts: 4,
            ..config()
        },
    );
    let err = wai.embed_batch(&["نص"]).unwrap_err();
    assert_eq!(server.seen().len(), 4);
    assert!(err.message.contains("after 4 attempts"), "{}", err.message);
    assert!(
        err.message.contains("HTTP 503") && err.message.contains("upstream unavailable"),
        "{}",
        err.message
    );
    assert!(!err.help.is_empty());
}

#[test]
fn client_errors_are_not_retried() {
    let server = TestServer::start(|_, _, _| {
        Reply::status(
            400,
            r#"{"success":false,"errors":[{"code":5006,"message":"input too long"}]}"#,
        )
    });
    let wai = client(&server.base, config());
    let err = wai.embed_batch(&["نص"]).unwrap_err();
    assert_eq!(server.seen().len(), 1);
    assert!(
        err.message.contains("HTTP 400") && err.message.contains("input too long"),
        "{}",
        err.message
    );
    assert!(err.help.contains("max_chars"), "{}", err.help);
}

#[test]
fn malformed_responses_are_errors() {
    let bodies = [
        "this is not json",
        r#"{"result":{"data":"oops"},"success":true}"#,
        r#"{"success":true,"errors":[]}"#,
        r#"{"result":{"data":[[0,0,0,0,0,0,0,null]]},"success":true}"#,
        r#"{"result":{"data":[]},"success":true}"#,
        r#"{"result":null,"success":false,"errors":[{"code":7,"message":"no such model"}]}"#,
        r#"{"result":{"data":[[1e40,0,0,0,0,0,0,0]]},"success":true}"#,
    ];
    for body in bodies {
        let server = TestServer::start(move |_, _, _| Reply::status(200, body));
        let wai = client(&server.base, config());
        let err = wai.embed_batch(&["نص"]).unwrap_err();
        assert_eq!(
            server.seen().len(),
            1,
            "malformed answers are not retried ({body})"
        );
        assert!(
            err.message.starts_with("Workers AI"),
            "{body}: {}",
            err.message
        );
        assert!(!err.help.is_empty());
    }
}

#[test]
fn wrong_dims_is_an_error() {
    let server = TestServer::start(|_, texts, _| Reply::ok_dims(texts, DIMS - 1));
    let wai = client(&server.base, config());
    let err = wai.embed_batch(&["أ", "ب"]).unwrap_err();
    assert!(
        err.message.contains("7 dimensions") && err.message.contains("expected 8"),
        "{}",
        err.message
    );
}

#[test]
fn token_never_appears_in_errors_or_debug() {
    // A hostile server that echoes the Authorization header into every error body.
    let echo = |status: u16| {
        move |_: usize, _: &[String], auth: &str| {
            Reply::status(
                status,
                &format!(
                    r#"{{"success":false,"errors":[{{"code":1,"message":"bad header {auth}"}}]}}"#
                ),
            )
        }
    };
    let mut errors = vec![];
    for status in [401u16, 403, 404, 400, 500, 429] {
        let server = TestServer::start(echo(status));
        let wai = client(&server.base, config());
        errors.push(wai.embed_batch(&["نص"]).unwrap_err());
        let dbg = format!("{wai:?}");
        assert!(!dbg.contains(TOKEN) && dbg.contains("[redacted]"), "{dbg}");
    }
    // 200 with a malformed body that contains the token.
    let server = TestServer::start(|_, _, auth| Reply::status(200, &format!("oops {auth}")));
    errors.push(
        client(&server.base, config())
            .embed_batch(&["نص"])
            .unwrap_err(),
    );
    // Nothing listens: a transport error.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dead = client(
        &format!("http://127.0.0.1:{port}/client/v4"),
        WorkersAiConfig {
            max_attempts: 2,
            ..config()
        },
    );
    errors.push(dead.embed_batch(&["نص"]).unwrap_err());
    // Construction errors.
    errors.push(
        WorkersAi::new_with_env(config(), |n| {
            (n == "CLOUDFLARE_API_TOKEN").then(|| TOKEN.to_string())
        })
        .unwrap_err(),
    );
    errors.push(
        WorkersAi::new_with_env(config(), |n| match n {
            "CLOUDFLARE_API_TOKEN" => Some(TOKEN.into()),
            "CLOUDFLARE_ACCOUNT_ID" => Some(ACCOUNT.into()),
            "ASKZICO_CF_API_BASE" => Some("ftp://example".into()),
            _ => None,
        })
        .unwrap_err(),
    );
    for e in &errors {
        let all = format!("{e:?} {e} {} {}", e.message, e.help);
        assert!(!all.contains(TOKEN), "token leaked: {all}");
        assert!(!e.message.is_empty() && !e.help.is_empty(), "{e:?}");
    }
    // The echoing server did get the token, so the scrubbing above was exercised.
    assert!(errors[0].message.contains("***"), "{}", errors[0].message);
}

#[test]
fn configuration_from_env_and_config() {
    let no_env = |_: &str| None::<String>;
    let err = WorkersAi::new_with_env(config(), no_env).unwrap_err();
    assert!(
        err.message.contains("CLOUDFLARE_API_TOKEN"),
        "{}",
        err.message
    );

    let token_only = |n: &str| (n == "CLOUDFLARE_API_TOKEN").then(|| TOKEN.to_string());
    let err = WorkersAi::new_with_env(config(), token_only).unwrap_err();
    assert!(err.help.contains("CLOUDFLARE_ACCOUNT_ID"), "{}", err.help);

    // The account from the config file, and the variable winning over it.
    let from_config = WorkersAi::new_with_env(
        WorkersAiConfig {
            account_id: Some("cfg1".into()),
            ..config()
        },
        token_only,
    )
    .unwrap();
    assert!(
        from_config.url.starts_with(DEFAULT_API_BASE)
            && from_config.url.contains("/accounts/cfg1/ai/run/")
    );
    let both = |n: &str| match n {
        "CLOUDFLARE_API_TOKEN" => Some(TOKEN.to_string()),
        "CLOUDFLARE_ACCOUNT_ID" => Some("envacct".into()),
        _ => None,
    };
    let wai = WorkersAi::new_with_env(
        WorkersAiConfig {
            account_id: Some("cfg1".into()),
            ..config()
        },
        both,
    )
    .unwrap();
    assert_eq!(
        wai.url,
        format!("{DEFAULT_API_BASE}/accounts/envacct/ai/run/{MODEL}")
    );

    for bad in [
        WorkersAiConfig {
            batch: 101,
            ..config()
        },
        WorkersAiConfig {
            batch: 0,
            ..config()
        },
        WorkersAiConfig {
            dims: 0,
            ..config()
        },
        WorkersAiConfig {
            model: "a b".into(),
            ..config()
        },
        WorkersAiConfig {
            max_chars: 0,
            ..config()
        },
    ] {
        assert!(WorkersAi::new_with_env(bad, both).is_err());
    }
}

#[test]
fn long_texts_are_truncated_at_a_word_boundary_and_policy_is_described() {
    let server = TestServer::start(|_, texts, _| Reply::ok(texts));
    let wai = client(
        &server.base,
        WorkersAiConfig {
            max_chars: 10,
            ..config()
        },
    );
    let out = wai.embed_batch(&["كلمة كلمتان ثلاث كلمات", "قصير"]).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(
        server.seen()[0].texts,
        vec!["كلمة".to_string(), "قصير".to_string()]
    );
    let d = wai.describe();
    assert_eq!(d["provider"], "workers-ai");
    assert_eq!(d["model"], MODEL);
    assert_eq!(d["dims"], DIMS);
    assert_eq!(d["input"]["max_chars"], 10);
    assert_eq!(d["input"]["truncate"], "word-boundary");
    assert_eq!(d["input"]["truncate_inputs"], true);
    assert_eq!(wai.batch_hint(), 100);
}

#[test]
fn truncation_rules() {
    assert_eq!(truncate_at_word("abc def", 100), "abc def");
    assert_eq!(truncate_at_word("abc def", 7), "abc def");
    assert_eq!(truncate_at_word("abc def ghi", 7), "abc def"); // the limit falls on a space
    assert_eq!(truncate_at_word("abc def ghi", 6), "abc");
    assert_eq!(truncate_at_word("abcdefghij", 4), "abcd"); // one long word: hard cut
    assert_eq!(truncate_at_word("   abcdefghij", 6), "   abc"); // no word before the space
    assert_eq!(truncate_at_word("بيت لحم القديمة", 9), "بيت لحم");
    assert_eq!(truncate_at_word("", 3), "");
}

#[test]
fn a_silent_server_times_out_and_the_url_password_never_shows() {
    const PASSWORD: &str = "pw-Hunter2-Unit";
    // Accepts every connection and holds it, never answering.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = l.incoming().collect();
        drop(held);
    });
    let base = format!("http://askzico:{PASSWORD}@127.0.0.1:{port}/client/v4");
    let wai = client(
        &base,
        WorkersAiConfig {
            max_attempts: 2,
            timeouts: crate::http::Timeouts {
                connect: Duration::from_secs(5),
                idle: Duration::from_millis(200),
                ..Default::default()
            },
            ..config()
        },
    );
    let start = Instant::now();
    let err = wai.embed_batch(&["نص"]).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(
        err.message.contains(&format!(
            "failed after 2 attempts: timed out: no response from http://***@127.0.0.1:{port}/client/v4 for 0.2 s"
        )),
        "{}",
        err.message
    );
    assert!(err.help.contains("not answering"), "{}", err.help);
    let all = format!("{err:?} {wai:?}");
    assert!(!all.contains(PASSWORD) && !all.contains(TOKEN), "{all}");
    // The environment overrides the configured timeouts and retries.
    let env_client = WorkersAi::new_with_env(config(), |n| match n {
        "CLOUDFLARE_API_TOKEN" => Some(TOKEN.into()),
        "CLOUDFLARE_ACCOUNT_ID" => Some(ACCOUNT.into()),
        "ASKZICO_CF_API_BASE" => Some(base.clone()),
        "ASKZICO_HTTP_IDLE_TIMEOUT_MS" => Some("100".into()),
        "ASKZICO_WORKERS_AI_MAX_ATTEMPTS" => Some("1".into()),
        _ => None,
    })
    .unwrap();
    let err = env_client.embed_batch(&["نص"]).unwrap_err();
    assert!(
        err.message.contains("failed after 1 attempt: timed out")
            && err.message.contains("for 0.1 s"),
        "{}",
        err.message
    );
}
