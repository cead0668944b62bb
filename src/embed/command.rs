//! The `command` provider: any local model behind an external process speaking JSON lines.
//! Per batch: spawn `argv` (no shell), write `{"id":"<n>","text":"..."}` lines to its stdin and
//! close it, read `{"id":"<n>","values":[..]}` lines from its stdout (any order), wait for exit 0.
//! Edges only: processes, pipes and the clock (the per-batch timeout).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::embed::{EmbedError, Embedder, check_vectors};

/// Keep this much of the process's stderr for error messages.
const STDERR_TAIL_BYTES: usize = 4000;

pub(crate) struct CommandEmbedder {
    argv: Vec<String>,
    dims: usize,
    model_name: String,
    batch: usize,
    timeout: Duration,
}

impl CommandEmbedder {
    /// `argv[0]` is the program (looked up on PATH), the rest its arguments. `model_name`
    /// identifies the model in the cache key and the settings fingerprint: change it whenever
    /// the model or its settings change, or stale cached vectors will be reused.
    pub(crate) fn new(
        argv: Vec<String>,
        dims: usize,
        model_name: String,
    ) -> Result<Self, EmbedError> {
        if argv.first().is_none_or(|p| p.is_empty()) {
            return Err(EmbedError::new(
                "embedding provider command: the command is empty",
                "set the embedding command to an argv list, e.g. [\"python3\", \"embed.py\"]",
            ));
        }
        if dims == 0 {
            return Err(EmbedError::new(
                "embedding provider command: dims must be at least 1",
                "set the embedding dims to the model's output size",
            ));
        }
        Ok(CommandEmbedder {
            argv,
            dims,
            model_name,
            batch: 256,
            timeout: Duration::from_secs(600),
        })
    }

    /// Texts per process run (default 256).
    #[cfg(test)]
    pub(crate) fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }

    /// Longest time one batch may take, process start to exit (default 10 minutes).
    #[cfg(test)]
    pub(crate) fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn shown(&self) -> String {
        let joined = self.argv.join(" ");
        if joined.chars().count() > 120 {
            format!("{}…", joined.chars().take(120).collect::<String>())
        } else {
            joined
        }
    }

    /// One batch through one run of the command: started, fed and read on threads of their
    /// own, waited for within the timeout, and its answer lines checked.
    fn run(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let shown = self.shown();
        let mut child = self.spawn(&shown)?;
        let deadline = Instant::now() + self.timeout;
        let pipes = Pipes::start(&mut child, input_lines(texts));
        let output = self.finish(&mut child, pipes, deadline, &shown, texts.len())?;
        let vectors = self.answers(&output, texts.len(), &shown)?;
        check_vectors(
            &format!("the embedding command `{shown}`"),
            &vectors,
            texts.len(),
            self.dims,
        )?;
        Ok(vectors)
    }

    /// The process, its stdin, stdout and stderr piped.
    fn spawn(&self, shown: &str) -> Result<Child, EmbedError> {
        Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                EmbedError::new(
                    format!("could not start the embedding command `{shown}`: {e}"),
                    "check the embedding command in corpus.toml: its first item must be a program on PATH or a path to one",
                )
            })
    }

    /// Waits for the process's output and exit within `deadline`; a process that failed or left
    /// input unread is an error that quotes its stderr.
    fn finish(
        &self,
        child: &mut Child,
        pipes: Pipes,
        deadline: Instant,
        shown: &str,
        count: usize,
    ) -> Result<Output, EmbedError> {
        let lines = match pipes
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            Ok(Ok(lines)) => lines,
            Ok(Err(e)) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(EmbedError::new(
                    format!("reading the output of `{shown}` failed: {e}"),
                    "check the command",
                ));
            }
            Err(_) => return Err(self.timed_out(child, shown, count)),
        };
        // Stdout is closed; the process should exit now.
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(None) => return Err(self.timed_out(child, shown, count)),
                Err(e) => {
                    return Err(EmbedError::new(
                        format!("waiting for `{shown}` failed: {e}"),
                        "check the command",
                    ));
                }
            }
        };
        let write_result = pipes.writer.join().unwrap_or(Ok(()));
        let stderr_tail = pipes.stderr.join().unwrap_or_default();
        let stderr_tail = String::from_utf8_lossy(
            &stderr_tail[stderr_tail.len().saturating_sub(STDERR_TAIL_BYTES)..],
        )
        .trim()
        .to_string();
        let output = Output { lines, stderr_tail };
        if !status.success() {
            return Err(EmbedError::new(
                output.with_stderr(format!("the embedding command `{shown}` failed ({status})")),
                "run the command by hand with one JSON line on stdin to see the problem",
            ));
        }
        if let Err(e) = write_result {
            return Err(EmbedError::new(
                output.with_stderr(format!(
                    "the embedding command `{shown}` did not read all its input: {e}"
                )),
                "the command must read every line of stdin before it exits",
            ));
        }
        Ok(output)
    }

    /// The process killed for taking longer than the timeout, and the error saying so.
    fn timed_out(&self, child: &mut Child, shown: &str, count: usize) -> EmbedError {
        let _ = child.kill();
        let _ = child.wait();
        EmbedError::new(
            format!(
                "the embedding command `{shown}` did not finish a batch of {count} texts within {:?}",
                self.timeout
            ),
            "make the command answer faster (e.g. smaller batches), or raise the command timeout",
        )
    }

    /// The vectors of the output's answer lines, one per input text in input order: every id
    /// known and answered once, with `dims` values.
    fn answers(
        &self,
        output: &Output,
        count: usize,
        shown: &str,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let protocol_help = "each input line is {\"id\": \"<n>\", \"text\": \"...\"}; the command must print one line \
                             {\"id\": \"<n>\", \"values\": [numbers]} per input line";
        let mut out: Vec<Option<Vec<f32>>> = vec![None; count];
        for (lineno, raw) in output.lines.iter().enumerate() {
            let lineno = lineno + 1;
            let text = String::from_utf8_lossy(raw);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            let short: String = text.chars().take(80).collect();
            let bad = |why: String| {
                EmbedError::new(
                    format!("line {lineno} of the output of `{shown}` {why}: {short}"),
                    protocol_help,
                )
            };
            #[derive(serde::Deserialize)]
            struct Answer {
                id: serde_json::Value,
                values: Vec<f32>,
            }
            let answer: Answer = serde_json::from_str(text)
                .map_err(|e| bad(format!("is not a valid answer line ({e})")))?;
            let id = match &answer.id {
                serde_json::Value::String(s) => s.parse::<usize>().ok(),
                serde_json::Value::Number(n) => n.as_u64().map(|n| n as usize),
                _ => None,
            };
            let Some(id) = id.filter(|&i| i < count) else {
                return Err(bad(format!("has an unknown id {}", answer.id)));
            };
            if out[id].is_some() {
                return Err(bad(format!("repeats id \"{id}\"")));
            }
            if answer.values.len() != self.dims {
                return Err(EmbedError::new(
                    format!(
                        "line {lineno} of the output of `{shown}` has {} values for id \"{id}\"; expected {}",
                        answer.values.len(),
                        self.dims
                    ),
                    "set the embedding dims to the model's output size",
                ));
            }
            out[id] = Some(answer.values);
        }
        let missing: Vec<String> = out
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_none())
            .map(|(i, _)| format!("\"{i}\""))
            .collect();
        if !missing.is_empty() {
            let list = if missing.len() > 10 {
                format!("{} … ({} in all)", missing[..10].join(", "), missing.len())
            } else {
                missing.join(", ")
            };
            return Err(EmbedError::new(
                output.with_stderr(format!(
                    "the embedding command `{shown}` gave no vector for id {list}"
                )),
                protocol_help,
            ));
        }
        Ok(out.into_iter().map(|v| v.unwrap_or_default()).collect())
    }
}

/// The batch as the command reads it: one `{"id": "<n>", "text": "..."}` line per text.
fn input_lines(texts: &[&str]) -> Vec<u8> {
    let mut input = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        serde_json::to_writer(
            &mut input,
            &serde_json::json!({"id": i.to_string(), "text": t}),
        )
        .expect("serializing a string map cannot fail");
        input.push(b'\n');
    }
    input
}

/// Blocks SIGPIPE in the calling thread, so that writing to a command that exited without
/// reading its input fails with `EPIPE` (reported with the command's stderr) instead of killing
/// askzico: the process keeps SIGPIPE's default disposition (`main`) so that `askzico … | head`
/// ends quietly. The signal a write raises is the writing thread's own; it stays pending in
/// this thread and goes with it.
fn block_sigpipe() {
    // SAFETY: a signal set on the stack, filled by sigemptyset/sigaddset before use; the mask
    // change concerns this thread only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// The threads that feed the process's stdin and read its stdout and stderr, each on its own so
/// no pipe can fill up and block.
struct Pipes {
    /// Writes the input and closes stdin.
    writer: std::thread::JoinHandle<std::io::Result<()>>,
    /// The last `STDERR_TAIL_BYTES` (or up to twice as many) of stderr.
    stderr: std::thread::JoinHandle<Vec<u8>>,
    /// Stdout's lines, sent once stdout is closed.
    lines: mpsc::Receiver<std::io::Result<Vec<Vec<u8>>>>,
}

impl Pipes {
    fn start(child: &mut Child, input: Vec<u8>) -> Pipes {
        let mut stdin = child.stdin.take().expect("piped stdin");
        let writer = std::thread::spawn(move || {
            block_sigpipe();
            stdin.write_all(&input).and_then(|()| stdin.flush())
        });
        let mut stderr = child.stderr.take().expect("piped stderr");
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            while let Ok(n) = stderr.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > 2 * STDERR_TAIL_BYTES {
                    buf.drain(..buf.len() - STDERR_TAIL_BYTES);
                }
            }
            buf
        });
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = Vec::new();
            let mut reader = BufReader::new(stdout);
            let result = loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => break Ok(lines),
                    Ok(_) => lines.push(line),
                    Err(e) => break Err(e),
                }
            };
            let _ = tx.send(result);
        });
        Pipes {
            writer,
            stderr,
            lines,
        }
    }
}

/// What a process that exited printed: its stdout's lines and the end of its stderr.
struct Output {
    lines: Vec<Vec<u8>>,
    stderr_tail: String,
}

impl Output {
    /// `m`, followed by the end of the process's stderr when it wrote any.
    fn with_stderr(&self, m: String) -> String {
        if self.stderr_tail.is_empty() {
            m
        } else {
            format!("{m}; its stderr ends with:\n{}", self.stderr_tail)
        }
    }
}

impl Embedder for CommandEmbedder {
    fn dims(&self) -> usize {
        self.dims
    }

    /// The argv is left out on purpose: paths differ between machines, the model does not.
    fn describe(&self) -> serde_json::Value {
        serde_json::json!({"provider": "command", "model": self.model_name, "dims": self.dims, "input": "full"})
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.batch) {
            out.extend(self.run(chunk)?);
        }
        Ok(out)
    }

    fn batch_hint(&self) -> usize {
        self.batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A python3 "model": the vector of a text is [len, id, 1, ...] over `dims` values.
    /// `mode` bends it: "reverse" answers in reverse order, "short" gives one value too few,
    /// "fail" exits 3, "skip" drops the last id, "garbage" prints a non-JSON second line,
    /// "slow" sleeps.
    fn script(mode: &str, dims: usize) -> Vec<String> {
        let code = r#"
import sys, json, time
mode, dims = sys.argv[1], int(sys.argv[2])
items = [json.loads(l) for l in sys.stdin if l.strip()]
if mode == "fail":
    sys.stderr.write("model file not found\n"); sys.exit(3)
if mode == "slow":
    time.sleep(5)
if mode == "reverse":
    items.reverse()
if mode == "skip":
    items = items[:-1]
out = []
for it in items:
    n = dims - 1 if mode == "short" else dims
    v = [float(len(it["text"])), float(it["id"])] + [1.0] * (n - 2)
    out.append(json.dumps({"id": it["id"], "values": v[:n]}))
if mode == "garbage":
    out.insert(1, "Loading model... done")
print("\n".join(out))
"#;
        vec![
            "python3".into(),
            "-c".into(),
            code.into(),
            mode.into(),
            dims.to_string(),
        ]
    }

    fn embedder(mode: &str) -> CommandEmbedder {
        CommandEmbedder::new(script(mode, 4), 4, "test-model".into()).unwrap()
    }

    #[test]
    fn success_and_batches() {
        let e = embedder("plain").with_batch(2);
        let out = e
            .embed_batch(&["أ", "بب", "ججج\nسطر", "\"quoted\""])
            .unwrap();
        // len() in python counts code points; ids restart at 0 in every batch of 2.
        assert_eq!(
            out,
            vec![
                vec![1.0, 0.0, 1.0, 1.0],
                vec![2.0, 1.0, 1.0, 1.0],
                vec![7.0, 0.0, 1.0, 1.0],
                vec![8.0, 1.0, 1.0, 1.0]
            ]
        );
        assert_eq!(e.embed_batch(&[]).unwrap(), Vec::<Vec<f32>>::new());
        assert_eq!(
            crate::embed::canonical_json(&e.describe()),
            r#"{"dims":4,"input":"full","model":"test-model","provider":"command"}"#
        );
    }

    #[test]
    fn out_of_order_ids_are_matched() {
        let out = embedder("reverse")
            .embed_batch(&["a", "bb", "ccc"])
            .unwrap();
        assert_eq!(
            out.iter().map(|v| v[0]).collect::<Vec<_>>(),
            vec![1.0, 2.0, 3.0]
        );
        assert_eq!(
            out.iter().map(|v| v[1]).collect::<Vec<_>>(),
            vec![0.0, 1.0, 2.0]
        );
    }

    #[test]
    fn wrong_dims_is_an_error() {
        let err = embedder("short").embed_batch(&["a", "b"]).unwrap_err();
        assert!(
            err.message.contains("3 values") && err.message.contains("expected 4"),
            "{}",
            err.message
        );
        assert!(err.message.contains("line 1"), "{}", err.message);
    }

    #[test]
    fn non_zero_exit_is_an_error_with_stderr() {
        let err = embedder("fail").embed_batch(&["a"]).unwrap_err();
        assert!(
            err.message.contains("failed") && err.message.contains("exit status: 3"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("model file not found"),
            "{}",
            err.message
        );
    }

    #[test]
    fn missing_ids_and_non_json_lines_are_errors() {
        let err = embedder("skip").embed_batch(&["a", "b", "c"]).unwrap_err();
        assert!(
            err.message.contains("no vector for id \"2\""),
            "{}",
            err.message
        );
        let err = embedder("garbage")
            .embed_batch(&["a", "b", "c"])
            .unwrap_err();
        assert!(
            err.message.contains("line 2") && err.message.contains("Loading model"),
            "{}",
            err.message
        );
    }

    #[test]
    fn start_failure_and_timeout() {
        let err = CommandEmbedder::new(vec!["/nonexistent/embedder-bin".into()], 4, "m".into())
            .unwrap()
            .embed_batch(&["a"])
            .unwrap_err();
        assert!(
            err.message.contains("could not start")
                && err.message.contains("/nonexistent/embedder-bin")
        );
        let start = Instant::now();
        let err = embedder("slow")
            .with_timeout(Duration::from_millis(300))
            .embed_batch(&["a"])
            .unwrap_err();
        assert!(err.message.contains("did not finish"), "{}", err.message);
        assert!(
            start.elapsed() < Duration::from_secs(4),
            "the process was not killed in time"
        );
        assert!(CommandEmbedder::new(vec![], 4, "m".into()).is_err());
        assert!(CommandEmbedder::new(vec!["x".into()], 0, "m".into()).is_err());
    }
}
