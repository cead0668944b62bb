//! knobs: every `ASKZICO_*` environment variable askzico reads, in one table ([`KNOBS`]: name,
//! meaning, accepted values, default), parsed and range-checked here and nowhere else.
//!
//! The CLI checks them all before a command runs ([`check_env`]): a value that does not parse or
//! lies outside its range is a usage error naming the variable, the value and what is accepted,
//! never a silent fallback. No value turns a bound off: a timeout, a deadline or an attempt count
//! is at least 1. An empty value counts as unset. The readers elsewhere ask this module for the
//! value ([`number`], [`number_in`], [`switch`], [`text`]).

use std::fmt;
use std::time::Duration;

use crate::diag::Problem;

/// What a knob accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
// The path kinds are the test hooks' (`--features test-hooks`).
#[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
pub(crate) enum Kind {
    /// A whole number in `min..=max`; `default` when unset (`None`: the default comes from the
    /// settings the knob overrides, as `default_doc` says).
    Number {
        min: u64,
        max: u64,
        default: Option<u64>,
        unit: &'static str,
    },
    /// `0` or `1`.
    Switch,
    /// The Cloudflare API base: an http(s) URL without a query string (checked by
    /// [`crate::http::BaseUrl::parse`]).
    ApiBase,
    /// `<library>/<path>`: a source of a library.
    LibraryPath,
    /// An absolute path of a file the test creates and removes.
    AbsoluteFile,
}

/// One `ASKZICO_*` variable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Knob {
    pub name: &'static str,
    pub meaning: &'static str,
    pub kind: Kind,
    /// The default, in words (docs/safety.md and messages).
    pub default_doc: &'static str,
    /// A hook for askzico's own tests (crash and race injection, timing); not for users.
    // Read by the test that holds docs/safety.md's table of knobs against this one.
    #[cfg_attr(not(test), allow(dead_code))]
    pub test_only: bool,
}

const fn num(
    name: &'static str,
    meaning: &'static str,
    (min, max): (u64, u64),
    default: u64,
    unit: &'static str,
    default_doc: &'static str,
) -> Knob {
    Knob {
        name,
        meaning,
        kind: Kind::Number {
            min,
            max,
            default: Some(default),
            unit,
        },
        default_doc,
        test_only: false,
    }
}

const fn test_hook(name: &'static str, meaning: &'static str, kind: Kind) -> Knob {
    Knob {
        name,
        meaning,
        kind,
        default_doc: "unset (off)",
        test_only: true,
    }
}

const DAY_MS: u64 = 24 * 3600 * 1000;

pub(crate) const CF_API_BASE: &str = "ASKZICO_CF_API_BASE";
pub(crate) const HTTP_CONNECT_TIMEOUT_MS: &str = "ASKZICO_HTTP_CONNECT_TIMEOUT_MS";
pub(crate) const HTTP_IDLE_TIMEOUT_MS: &str = "ASKZICO_HTTP_IDLE_TIMEOUT_MS";
pub(crate) const HTTP_DEADLINE_MS: &str = "ASKZICO_HTTP_DEADLINE_MS";
pub(crate) const DEPLOY_MAX_ATTEMPTS: &str = "ASKZICO_DEPLOY_MAX_ATTEMPTS";
pub(crate) const DEPLOY_RETRY_MS: &str = "ASKZICO_DEPLOY_RETRY_MS";
pub(crate) const DEPLOY_WAIT_SECS: &str = "ASKZICO_DEPLOY_WAIT_SECS";
#[cfg(feature = "test-hooks")]
pub(crate) const DEPLOY_MAX_METADATA_BYTES: &str = "ASKZICO_DEPLOY_MAX_METADATA_BYTES";
#[cfg(feature = "test-hooks")]
pub(crate) const DEPLOY_MAX_UPSERT_VECTORS: &str = "ASKZICO_DEPLOY_MAX_UPSERT_VECTORS";
#[cfg(feature = "test-hooks")]
pub(crate) const DEPLOY_MAX_KV_PAIRS: &str = "ASKZICO_DEPLOY_MAX_KV_PAIRS";
pub(crate) const WORKERS_AI_MAX_ATTEMPTS: &str = "ASKZICO_WORKERS_AI_MAX_ATTEMPTS";
pub(crate) const WORKERS_AI_RETRY_MS: &str = "ASKZICO_WORKERS_AI_RETRY_MS";
#[cfg(feature = "test-hooks")]
pub(crate) const FAIL_AFTER_WRITES: &str = "ASKZICO_FAIL_AFTER_WRITES";
#[cfg(feature = "test-hooks")]
pub(crate) const KILL_AFTER_WRITES: &str = "ASKZICO_KILL_AFTER_WRITES";
#[cfg(feature = "test-hooks")]
pub(crate) const TEST_DELETE_BEFORE_READ: &str = "ASKZICO_TEST_DELETE_BEFORE_READ";
#[cfg(feature = "test-hooks")]
pub(crate) const TEST_PAUSE_BEFORE_LOAD: &str = "ASKZICO_TEST_PAUSE_BEFORE_LOAD";
pub(crate) const DIRECT_WRITES: &str = "ASKZICO_DIRECT_WRITES";
pub(crate) const STAGE_TIMES: &str = "ASKZICO_STAGE_TIMES";

/// Every `ASKZICO_*` variable askzico reads.
pub(crate) const KNOBS: &[Knob] = &[
    Knob {
        name: CF_API_BASE,
        meaning: "the Cloudflare API base URL (a proxy, a test server)",
        kind: Kind::ApiBase,
        default_doc: crate::http::DEFAULT_API_BASE,
        test_only: false,
    },
    num(
        HTTP_CONNECT_TIMEOUT_MS,
        "how long connecting (name lookup, TCP, TLS) may take",
        (1, DAY_MS),
        15_000,
        "ms",
        "15000 (15 s)",
    ),
    num(
        HTTP_IDLE_TIMEOUT_MS,
        "how long an exchange may go without a byte sent or received",
        (1, DAY_MS),
        60_000,
        "ms",
        "60000 (60 s)",
    ),
    num(
        HTTP_DEADLINE_MS,
        "how long one request may take in all, however steadily its bytes come",
        (1, DAY_MS),
        300_000,
        "ms",
        "300000 (5 min)",
    ),
    num(
        DEPLOY_MAX_ATTEMPTS,
        "attempts per deploy request, the first included",
        (1, 100),
        6,
        "attempts",
        "6",
    ),
    num(
        DEPLOY_RETRY_MS,
        "the first backoff between a deploy request's attempts (it doubles per attempt)",
        (0, 600_000),
        500,
        "ms",
        "500",
    ),
    num(
        DEPLOY_WAIT_SECS,
        "how long a deploy waits for Vectorize to apply its writes",
        (0, 86_400),
        600,
        "s",
        "600 (10 min)",
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        DEPLOY_MAX_METADATA_BYTES,
        "a lower cap on one vector's metadata (Vectorize allows 10 KiB)",
        Kind::Number {
            min: 1,
            max: 10 * 1024,
            default: None,
            unit: "bytes",
        },
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        DEPLOY_MAX_UPSERT_VECTORS,
        "a lower cap on the vectors of one upsert (Vectorize allows 1000)",
        Kind::Number {
            min: 1,
            max: 1000,
            default: None,
            unit: "vectors",
        },
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        DEPLOY_MAX_KV_PAIRS,
        "a lower cap on the pairs of one KV bulk write or delete (KV allows 10000)",
        Kind::Number {
            min: 1,
            max: 10_000,
            default: None,
            unit: "pairs",
        },
    ),
    Knob {
        name: WORKERS_AI_MAX_ATTEMPTS,
        meaning: "attempts per Workers AI embedding request, the first included",
        kind: Kind::Number {
            min: 1,
            max: 100,
            default: None,
            unit: "attempts",
        },
        default_doc: "the embedding settings' (6)",
        test_only: false,
    },
    Knob {
        name: WORKERS_AI_RETRY_MS,
        meaning: "the first backoff between a Workers AI request's attempts",
        kind: Kind::Number {
            min: 0,
            max: 600_000,
            default: None,
            unit: "ms",
        },
        default_doc: "the embedding settings' (500)",
        test_only: false,
    },
    #[cfg(feature = "test-hooks")]
    test_hook(
        FAIL_AFTER_WRITES,
        "the write after this many file writes fails",
        Kind::Number {
            min: 0,
            max: u32::MAX as u64,
            default: None,
            unit: "writes",
        },
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        KILL_AFTER_WRITES,
        "the process kills itself during the write after this many file writes",
        Kind::Number {
            min: 0,
            max: u32::MAX as u64,
            default: None,
            unit: "writes",
        },
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        TEST_DELETE_BEFORE_READ,
        "this source is deleted right before a build reads it",
        Kind::LibraryPath,
    ),
    #[cfg(feature = "test-hooks")]
    test_hook(
        TEST_PAUSE_BEFORE_LOAD,
        "a local query creates this file once it has read its manifest and waits (at most a minute) until it is removed",
        Kind::AbsoluteFile,
    ),
    test_hook(
        DIRECT_WRITES,
        "0 turns the writer threads' direct writes off",
        Kind::Switch,
    ),
    test_hook(
        STAGE_TIMES,
        "1 prints the time of each build stage",
        Kind::Switch,
    ),
];

/// A value a knob does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadKnob {
    pub name: &'static str,
    /// The value as it was set (an API base shown with its credentials and query masked).
    pub value: String,
    /// What is wrong, naming the knob and the value, and saying what it accepts.
    pub message: String,
}

impl BadKnob {
    fn new(k: &Knob, value: &str) -> BadKnob {
        BadKnob {
            name: k.name,
            value: value.to_string(),
            message: format!("{}={value:?} is not accepted: {}", k.name, accepted(k.kind)),
        }
    }
}

impl fmt::Display for BadKnob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl BadKnob {
    /// The usage error a user sees.
    pub(crate) fn problem(&self) -> Problem {
        let knob = knob(self.name);
        let meaning = knob.map_or("", |k| k.meaning);
        let default = knob.map_or("", |k| k.default_doc);
        Problem::error("environment", self.to_string()).help(format!(
            "{} sets {meaning}; set it to an accepted value, or unset it for the default, {default}",
            self.name
        ))
    }
}

/// The table entry of `name`.
pub(crate) fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.name == name)
}

/// What `kind` accepts, in words.
fn accepted(kind: Kind) -> String {
    match kind {
        Kind::Number { min, max, unit, .. } => {
            format!("expected a whole number of {unit} from {min} to {max}")
        }
        Kind::Switch => "expected 0 or 1".into(),
        Kind::ApiBase => "expected an http(s) URL without a query string or fragment, e.g. https://api.cloudflare.com/client/v4".into(),
        Kind::LibraryPath => "expected <library>/<path of a source>".into(),
        Kind::AbsoluteFile => "expected an absolute file path".into(),
    }
}

/// The value of `name` in `env` (trimmed; empty counts as unset).
fn raw(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Checks one knob's value.
fn check_one(k: &Knob, value: &str) -> Result<(), BadKnob> {
    match k.kind {
        Kind::Number { min, max, .. } => match value.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(()),
            _ => Err(BadKnob::new(k, value)),
        },
        Kind::Switch if value == "0" || value == "1" => Ok(()),
        Kind::Switch => Err(BadKnob::new(k, value)),
        // The message of the URL check shows the value with its credentials masked.
        Kind::ApiBase => crate::http::BaseUrl::parse(Some(value))
            .map(|_| ())
            .map_err(|message| BadKnob {
                name: k.name,
                value: crate::http::redact::shown_base(value),
                message,
            }),
        Kind::LibraryPath => match value.split_once('/') {
            Some((lib, rel)) if !lib.is_empty() && !rel.is_empty() => Ok(()),
            _ => Err(BadKnob::new(k, value)),
        },
        Kind::AbsoluteFile if std::path::Path::new(value).is_absolute() => Ok(()),
        Kind::AbsoluteFile => Err(BadKnob::new(k, value)),
    }
}

/// Every knob of `env` checked: the bad ones, in table order.
pub(crate) fn check(env: &dyn Fn(&str) -> Option<String>) -> Vec<BadKnob> {
    KNOBS
        .iter()
        .filter_map(|k| check_one(k, &raw(env, k.name)?).err())
        .collect()
}

/// Every knob of the process environment checked, as the CLI does before a command runs.
pub(crate) fn check_env() -> Result<(), Vec<Problem>> {
    let bad = check(&process_env);
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.iter().map(BadKnob::problem).collect())
    }
}

fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The number `name` is set to in `env`, `None` when unset; an error when it is not a whole
/// number in its range (or `name` is not a number knob of the table).
pub(crate) fn number_in(
    env: &dyn Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<Option<u64>, BadKnob> {
    let Some(k) = knob(name).filter(|k| matches!(k.kind, Kind::Number { .. })) else {
        return Err(BadKnob {
            name,
            value: String::new(),
            message: format!("{name} is not a number knob of askzico's table"),
        });
    };
    let Some(v) = raw(env, name) else {
        return Ok(None);
    };
    check_one(k, &v)?;
    Ok(v.parse().ok())
}

/// The number `name` is set to in `env`, or its default.
pub(crate) fn number_or_default(
    env: &dyn Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<u64, BadKnob> {
    let default = match knob(name).map(|k| k.kind) {
        Some(Kind::Number { default, .. }) => default,
        _ => None,
    };
    Ok(number_in(env, name)?.or(default).unwrap_or(0))
}

/// The number `name` is set to in the process environment, or its default. Where a reader
/// cannot report an error itself, a bad value gives the default: the CLI has refused it before
/// any command ran ([`check_env`]), so only a caller of the library can meet that case.
pub(crate) fn number(name: &'static str) -> u64 {
    number_or_default(&process_env, name).unwrap_or_else(|_| match knob(name).map(|k| k.kind) {
        Some(Kind::Number {
            default: Some(d), ..
        }) => d,
        _ => 0,
    })
}

/// The number a test hook is set to, `None` when unset (or, outside the CLI, not a number).
#[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
pub(crate) fn hook_number(name: &'static str) -> Option<u64> {
    number_in(&process_env, name).ok().flatten()
}

/// Whether switch `name` is set to `1` (`None` when unset or, outside the CLI, not 0 or 1).
pub(crate) fn switch(name: &'static str) -> Option<bool> {
    let v = raw(&process_env, name)?;
    let k = knob(name)?;
    check_one(k, &v).ok()?;
    Some(v == "1")
}

/// The text `name` is set to, `None` when unset or not accepted.
#[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
pub(crate) fn text(name: &'static str) -> Option<String> {
    let v = raw(&process_env, name)?;
    check_one(knob(name)?, &v).ok()?;
    Some(v)
}

impl crate::http::Timeouts {
    /// `self`, with `ASKZICO_HTTP_CONNECT_TIMEOUT_MS`, `ASKZICO_HTTP_IDLE_TIMEOUT_MS` and
    /// `ASKZICO_HTTP_DEADLINE_MS` from `env` where set; a value out of range is an error naming
    /// the variable.
    pub(crate) fn with_env(
        self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<crate::http::Timeouts, String> {
        let ms = |name, current: Duration| {
            number_in(&env, name)
                .map(|v| v.map_or(current, Duration::from_millis))
                .map_err(|e| e.to_string())
        };
        Ok(crate::http::Timeouts {
            connect: ms(HTTP_CONNECT_TIMEOUT_MS, self.connect)?,
            idle: ms(HTTP_IDLE_TIMEOUT_MS, self.idle)?,
            deadline: ms(HTTP_DEADLINE_MS, self.deadline)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |n| {
            pairs
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_bad_value_names_the_knob_its_value_and_the_range() {
        let e = env(&[
            (DEPLOY_MAX_ATTEMPTS, "abc"),
            (HTTP_IDLE_TIMEOUT_MS, "0"),
            (DEPLOY_RETRY_MS, "-1"),
            (STAGE_TIMES, "yes"),
        ]);
        let bad: Vec<String> = check(&e).iter().map(ToString::to_string).collect();
        assert_eq!(
            bad,
            [
                "ASKZICO_HTTP_IDLE_TIMEOUT_MS=\"0\" is not accepted: expected a whole number of ms from 1 to 86400000",
                "ASKZICO_DEPLOY_MAX_ATTEMPTS=\"abc\" is not accepted: expected a whole number of attempts from 1 to 100",
                "ASKZICO_DEPLOY_RETRY_MS=\"-1\" is not accepted: expected a whole number of ms from 0 to 600000",
                "ASKZICO_STAGE_TIMES=\"yes\" is not accepted: expected 0 or 1",
            ]
        );
        let p = check(&e)[1].problem();
        assert!(
            p.help
                .as_deref()
                .is_some_and(|h| h.contains("attempts per deploy request") && h.ends_with(", 6")),
            "{p:?}"
        );
        assert_eq!(
            number_in(&e, DEPLOY_MAX_ATTEMPTS).unwrap_err().name,
            DEPLOY_MAX_ATTEMPTS
        );
    }

    #[cfg(feature = "test-hooks")]
    #[test]
    fn a_test_hook_is_checked_like_any_knob() {
        let e = env(&[
            (DEPLOY_MAX_UPSERT_VECTORS, "1001"),
            (TEST_DELETE_BEFORE_READ, "no-slash"),
            (FAIL_AFTER_WRITES, "3.5"),
        ]);
        let bad: Vec<String> = check(&e).iter().map(ToString::to_string).collect();
        assert_eq!(
            bad,
            [
                "ASKZICO_DEPLOY_MAX_UPSERT_VECTORS=\"1001\" is not accepted: expected a whole number of vectors from 1 to 1000",
                "ASKZICO_FAIL_AFTER_WRITES=\"3.5\" is not accepted: expected a whole number of writes from 0 to 4294967295",
                "ASKZICO_TEST_DELETE_BEFORE_READ=\"no-slash\" is not accepted: expected <library>/<path of a source>",
            ]
        );
        assert!(check(&env(&[(TEST_DELETE_BEFORE_READ, "docs/a.md")])).is_empty());
    }

    #[test]
    fn no_knob_turns_a_bound_off() {
        for k in KNOBS {
            if let Kind::Number { min, .. } = k.kind
                && (k.name.contains("TIMEOUT")
                    || k.name.contains("DEADLINE")
                    || k.name.contains("ATTEMPTS")
                    || k.name.contains("_MAX_"))
            {
                assert!(min >= 1, "{} accepts 0", k.name);
                let pairs = [(k.name, "0")];
                assert_eq!(check(&env(&pairs)).len(), 1, "{}", k.name);
            }
        }
    }

    #[test]
    fn good_values_unset_and_empty_ones_pass_and_defaults_come_from_the_table() {
        let e = env(&[
            (DEPLOY_MAX_ATTEMPTS, " 3 "),
            (HTTP_IDLE_TIMEOUT_MS, ""),
            (DEPLOY_WAIT_SECS, "0"),
            (CF_API_BASE, "http://127.0.0.1:9/client/v4"),
            (DIRECT_WRITES, "0"),
        ]);
        assert!(check(&e).is_empty(), "{:?}", check(&e));
        assert_eq!(number_or_default(&e, DEPLOY_MAX_ATTEMPTS), Ok(3));
        assert_eq!(number_or_default(&e, HTTP_IDLE_TIMEOUT_MS), Ok(60_000));
        assert_eq!(number_or_default(&e, HTTP_DEADLINE_MS), Ok(300_000));
        assert_eq!(number_in(&e, WORKERS_AI_MAX_ATTEMPTS), Ok(None));
        // The HTTP timeouts' defaults are the table's.
        let none = |_: &str| None;
        let t = crate::http::Timeouts::default();
        for (knob, d) in [
            (HTTP_CONNECT_TIMEOUT_MS, t.connect),
            (HTTP_IDLE_TIMEOUT_MS, t.idle),
            (HTTP_DEADLINE_MS, t.deadline),
        ] {
            assert_eq!(
                number_or_default(&none, knob),
                Ok(d.as_millis() as u64),
                "{knob}"
            );
        }
        assert!(number_in(&e, CF_API_BASE).is_err());
    }

    #[test]
    fn an_api_base_with_a_query_is_refused_with_its_credentials_and_query_masked() {
        let e = env(&[(
            CF_API_BASE,
            "https://u:pw-Secret@h.example/client/v4?key=Secret2",
        )]);
        let bad = check(&e);
        assert_eq!(bad.len(), 1);
        let shown = bad[0].to_string();
        assert!(!shown.contains("Secret"), "{shown}");
        assert!(
            shown.contains("https://***@h.example/client/v4?***"),
            "{shown}"
        );
        assert!(shown.contains("query string"), "{shown}");
    }

    #[test]
    fn the_safety_page_documents_every_user_facing_knob() {
        let page = include_str!("../docs/safety.md");
        for k in KNOBS.iter().filter(|k| !k.test_only) {
            assert!(
                page.contains(&format!("| `{}` |", k.name)),
                "docs/safety.md's table of knobs does not name {}",
                k.name
            );
        }
    }

    // The test-only knobs are in the table only when the test hooks are built in.
    #[cfg(feature = "test-hooks")]
    #[test]
    fn every_knob_read_in_the_sources_is_in_the_table() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut read = std::collections::BTreeSet::new();
        for e in walkdir::WalkDir::new(&src)
            .into_iter()
            .filter_map(Result::ok)
        {
            if e.path().extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(e.path()).unwrap();
                for (i, _) in text.match_indices("\"ASKZICO_") {
                    let name: String = text[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    if name.len() > "ASKZICO_".len() {
                        read.insert(name);
                    }
                }
            }
        }
        for name in read {
            assert!(knob(&name).is_some(), "{name} is read but not in KNOBS");
        }
    }
}
