// What the Worker's tests share: running askzico, writing the wrangler configs of a test
// deployment (the Worker, and the Vectorize and Workers AI double beside it), seeding its
// local KV from `askzico export`, and starting `wrangler dev` (workerd) on a free port.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const workerDir = path.resolve(here, "..");

export function die(message) {
  console.error(`FAIL ${message}`);
  process.exit(1);
}

export function need(name) {
  const v = process.env[name];
  if (!v) die(`${name} must be set`);
  return v;
}

/** Runs askzico with `args`; its standard output. */
export function askzico(args, options = {}) {
  try {
    return execFileSync(need("ASKZICO_BIN"), args, { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"], ...options });
  } catch (e) {
    die(`askzico ${args.join(" ")} failed: ${e.stderr || e.message}`);
  }
}

export function wranglerBin() {
  return path.join(need("ASKZICO_WORKER_DEPS"), ".bin", "wrangler");
}

function wrangler(args, cwd) {
  try {
    return execFileSync(wranglerBin(), args, {
      cwd,
      encoding: "utf8",
      maxBuffer: 1 << 28,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    die(`wrangler ${args.join(" ")} failed: ${e.stderr || e.message}`);
  }
}

/** A test deployment in `dir`: its configs, its local state, and a running `wrangler dev`. */
export class Deployment {
  constructor(dir, { prefix = "", vars = {}, fail = "", vectorize = true } = {}) {
    this.dir = dir;
    this.prefix = prefix;
    this.state = path.join(dir, "state");
    fs.mkdirSync(this.state, { recursive: true });
    this.configure({ vars, fail, vectorize });
  }

  /** Writes the two configs: the Worker with its KV, indexes and AI bound, and the double. */
  configure({ vars = {}, fail = "", vectorize = true } = {}) {
    const date = "2026-11-01";
    const services = [{ binding: "AI", service: "askzico-test-double", entrypoint: "FakeAi" }];
    if (vectorize) {
      services.push(
        { binding: "VECTORIZE_A", service: "askzico-test-double", entrypoint: "IndexA" },
        { binding: "VECTORIZE_B", service: "askzico-test-double", entrypoint: "IndexB" },
      );
    }
    const main = {
      name: "askzico-test",
      main: path.join(workerDir, "src", "index.ts"),
      compatibility_date: date,
      kv_namespaces: [{ binding: "KV", id: "askzico-test-kv" }],
      services,
      vars: {
        PREFIX: this.prefix,
        INDEXES: { "askzico-a": "VECTORIZE_A", "askzico-b": "VECTORIZE_B" },
        ALLOWED_ORIGINS: "*",
        POINTER_TTL_SECONDS: "3600",
        CACHE_SECONDS: "0",
        ...vars,
      },
    };
    const double = {
      name: "askzico-test-double",
      main: path.join(here, "fake-vectorize.js"),
      compatibility_date: date,
      kv_namespaces: [{ binding: "VECTORS", id: "askzico-test-vectors" }],
      vars: { FAIL: fail },
    };
    this.mainConfig = path.join(this.dir, "wrangler.json");
    this.doubleConfig = path.join(this.dir, "double.wrangler.json");
    fs.writeFileSync(this.mainConfig, JSON.stringify(main, null, 2));
    fs.writeFileSync(this.doubleConfig, JSON.stringify(double, null, 2));
  }

  /** Puts pairs into the Worker's KV (`[{key, value}]`, as `askzico export --format kv`). */
  kvPut(pairs) {
    const file = path.join(this.dir, `put-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(file, JSON.stringify(pairs));
    wrangler(["kv", "bulk", "put", file, "--binding", "KV", "--local", "--persist-to", this.state, "-c", this.mainConfig], this.dir);
  }

  kvDelete(keys) {
    const file = path.join(this.dir, `del-${Date.now()}.json`);
    fs.writeFileSync(file, JSON.stringify(keys));
    wrangler(["kv", "bulk", "delete", file, "--binding", "KV", "--local", "--persist-to", this.state, "-c", this.mainConfig, "--force"], this.dir);
  }

  /** Loads the vectors of `askzico export --format vectorize` (a folder) into index `name`. */
  loadIndex(name, exportDir) {
    const lines = fs
      .readdirSync(exportDir)
      .filter((f) => f.endsWith(".ndjson"))
      .sort()
      .flatMap((f) => fs.readFileSync(path.join(exportDir, f), "utf8").split("\n").filter(Boolean));
    const parts = [];
    for (let i = 0; i < lines.length; i += 2000) parts.push(lines.slice(i, i + 2000).join("\n"));
    const pairs = parts.map((value, n) => ({ key: `index/${name}/${n}`, value }));
    const file = path.join(this.dir, `vectors-${name}.json`);
    fs.writeFileSync(file, JSON.stringify(pairs));
    wrangler(["kv", "bulk", "put", file, "--binding", "VECTORS", "--local", "--persist-to", this.state, "-c", this.doubleConfig], this.dir);
  }

  pointer(version, index, layout = 5) {
    this.kvPut([{ key: `${this.prefix}current`, value: JSON.stringify({ version, index, layout }) }]);
  }

  /** Starts `wrangler dev` with both workers; resolves once the Worker answers. */
  async start() {
    const port = await freePort();
    this.base = `http://127.0.0.1:${port}`;
    this.log = "";
    this.ready = 0;
    this.proc = spawn(
      wranglerBin(),
      ["dev", "-c", this.mainConfig, "-c", this.doubleConfig, "--ip", "127.0.0.1", "--port", String(port), "--persist-to", this.state, "--show-interactive-dev-session=false", "--log-level", "warn"],
      { cwd: this.dir, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    this.proc.stdout.on("data", (d) => (this.log += d));
    this.proc.stderr.on("data", (d) => (this.log += d));
    const until = Date.now() + 90_000;
    while (Date.now() < until) {
      if (this.proc.exitCode !== null) die(`wrangler dev exited:\n${this.log}`);
      try {
        const r = await fetch(`${this.base}/health`);
        await r.text();
        // wrangler dev may reload the Worker once just after it first answers: ready once it
        // has answered three times in a row.
        this.ready = (this.ready ?? 0) + 1;
        if (this.ready >= 3) return;
      } catch {
        this.ready = 0;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    die(`wrangler dev did not answer within 90 s:\n${this.log}`);
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    const done = new Promise((r) => this.proc.once("exit", r));
    this.proc.kill("SIGTERM");
    await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
    if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
  }

  async restart(options) {
    await this.stop();
    if (options) this.configure(options);
    await this.start();
  }

  /** GET `pathAndQuery`: status, body text and parsed JSON (when it is JSON). */
  async get(pathAndQuery, init) {
    let r;
    for (let attempt = 1; !r; attempt++) {
      try {
        r = await fetch(`${this.base}${pathAndQuery}`, init);
      } catch (e) {
        // A kept-alive connection the local server closed while the harness ran askzico is
        // dropped once; asked again on a new one. A Worker that fails again is a failure.
        const why = `${e.message} (${e.cause?.message ?? ""})`;
        if (attempt >= 2) die(`GET ${pathAndQuery.slice(0, 200)}: ${why}\nwrangler dev said:\n${this.log.slice(-3000)}`);
        console.log(`note: GET ${pathAndQuery.slice(0, 80)} failed once (${why}); asking again`);
        await new Promise((res) => setTimeout(res, 500));
      }
    }
    const text = await r.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: r.status, text, json, headers: r.headers };
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** A site built and exported: its output, KV pairs, vectors and its corpus version. */
export function buildSite(dir, config, prefix) {
  const out = path.join(dir, "out");
  askzico(["build", "--config", config, "--out", out]);
  const kvDir = path.join(dir, `kv-${Date.now()}`);
  const vecDir = path.join(dir, `vec-${Date.now()}`);
  askzico(["export", "--config", config, "--out", out, "--format", "kv", "--dest", kvDir, "--prefix", prefix]);
  askzico(["export", "--config", config, "--out", out, "--format", "vectorize", "--dest", vecDir]);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8"));
  const pairs = JSON.parse(fs.readFileSync(path.join(kvDir, "kv.json"), "utf8"));
  return { out, pairs, vecDir, version: manifest.corpus_version };
}

/** `askzico query --json --fixtures` of a build, by case: `{id, domains, line}` where `line` is
 * the answer's JSON as printed, without the case's own fields. */
export function cliAnswers(config, out, fixtures, mode) {
  const text = askzico(["query", "--config", config, "--out", out, "--json", "--mode", mode, "--fixtures", ...fixtures]);
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const v = JSON.parse(line);
      // The case's fields follow the answer's: the answer's bytes are what precedes them.
      const cut = line.lastIndexOf(',"id":');
      return { id: v.id, question: v.question, domains: v.domains, line: `${line.slice(0, cut)}}` };
    });
}

/** The query string of a question. */
export function searchPath(question, { k = 5, mode = "fused", domains = [], libraries = [], where = [] } = {}) {
  const p = new URLSearchParams({ q: question, k: String(k), mode });
  for (const d of domains) p.append("domain", d);
  for (const l of libraries) p.append("library", l);
  for (const w of where) p.append("where", w);
  return `/search?${p}`;
}

/** The answer part of a /search body: the bytes before the Worker's own fields. */
export function answerPart(body) {
  const cut = body.lastIndexOf(',"degraded":');
  return cut < 0 ? body : `${body.slice(0, cut)}}`;
}
