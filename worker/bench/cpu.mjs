// The Worker's CPU per question on Node 22 (V8, as workerd runs it): the Worker bundled as
// wrangler bundles it, its KV in memory (a read costs no CPU of the Worker's), the vector
// index a double whose own time is left out. Every fixture question of a build, asked once
// on a warm isolate (p50, p95, max), and the first question of a cold isolate (the version's
// tables read and opened) on its own. A benchmark: it prints figures, it asserts nothing.
//
// node worker/bench/cpu.mjs --config corpus.toml --fixtures fixtures.toml [--fixtures …]
// Env: ASKZICO_BIN (askzico), ASKZICO_WORKER_DEPS (node_modules with esbuild).

import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { askzico, buildSite, cliAnswers, need, workerDir } from "../test/harness.mjs";

const { values } = parseArgs({ options: { config: { type: "string" }, fixtures: { type: "string", multiple: true }, runs: { type: "string", default: "3" } } });
const require = createRequire(path.join(need("ASKZICO_WORKER_DEPS"), "x.js"));
const esbuild = require("esbuild");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "askzico-cpu-"));
const site = buildSite(dir, values.config, "");
const cases = cliAnswers(values.config, site.out, values.fixtures, "fused");
void askzico;

// The Worker as wrangler bundles it, with the WebAssembly module compiled by the host.
const bundle = path.join(dir, "worker.mjs");
await esbuild.build({
  entryPoints: [path.join(workerDir, "src", "index.ts")],
  bundle: true,
  format: "esm",
  outfile: bundle,
  plugins: [
    {
      name: "wasm-module",
      setup(b) {
        b.onResolve({ filter: /\.wasm$/ }, (a) => ({ path: path.resolve(a.resolveDir, a.path), namespace: "wasm" }));
        b.onLoad({ filter: /.*/, namespace: "wasm" }, (a) => ({
          contents: `import fs from "node:fs"; export default new WebAssembly.Module(fs.readFileSync(${JSON.stringify(a.path)}));`,
          loader: "js",
          resolveDir: workerDir,
        }));
      },
    },
  ],
  platform: "node",
  logLevel: "error",
});

const kv = new Map(site.pairs.map((p) => [p.key, p.value]));
kv.set("current", JSON.stringify({ version: site.version, index: "a", layout: 5 }));
const vectors = fs
  .readdirSync(site.vecDir)
  .filter((f) => f.endsWith(".ndjson"))
  .flatMap((f) => fs.readFileSync(path.join(site.vecDir, f), "utf8").split("\n").filter(Boolean))
  .map((l) => {
    const v = JSON.parse(l);
    return { id: v.id, values: Float32Array.from(v.values) };
  });
let outside = 0;
const env = {
  KV: {
    async get(k) {
      return Array.isArray(k) ? new Map(k.map((x) => [x, kv.get(x) ?? null])) : (kv.get(k) ?? null);
    },
  },
  VECTORIZE_A: {
    async query(vector, { topK }) {
      const t = performance.now();
      const q = Float32Array.from(vector);
      const m = vectors.map(({ id, values: v }) => {
        let s = 0;
        for (let i = 0; i < v.length; i++) s += v[i] * q[i];
        return { id, score: s };
      });
      m.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
      outside += performance.now() - t;
      return { matches: m.slice(0, topK) };
    },
  },
  INDEXES: { a: "VECTORIZE_A" },
  CACHE_SECONDS: "0",
  POINTER_TTL_SECONDS: "3600",
};
const ctx = { waitUntil() {} };

async function ask(worker, c) {
  const p = new URLSearchParams({ q: c.question, k: "5" });
  for (const d of c.domains) p.append("domain", d);
  outside = 0;
  const t = performance.now();
  const r = await worker.fetch(new Request(`https://x/search?${p}`), env, ctx);
  const body = await r.text();
  const ms = performance.now() - t - outside;
  if (r.status !== 200) throw new Error(`${c.id}: ${r.status} ${body.slice(0, 200)}`);
  const t2 = JSON.parse(body).timings;
  for (const k of ["plan_ms", "rank_ms", "answer_ms"]) steps[k] = (steps[k] ?? 0) + t2[k];
  return ms;
}

const steps = {};
const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const colds = [];
let warm = [];
for (let run = 0; run < Number(values.runs); run++) {
  // A fresh module instance is a cold isolate: nothing held.
  const worker = (await import(`${bundle}?run=${run}`)).default;
  colds.push(await ask(worker, cases[0]));
  for (const c of cases) await ask(worker, c); // warms the value cache
  const times = [];
  for (const c of cases) times.push(await ask(worker, c));
  warm = warm.concat(times);
}
warm.sort((a, b) => a - b);
const f = (x) => x.toFixed(2);
console.log(`corpus ${site.version}: ${cases.length} questions × ${values.runs} runs, ${kv.size} KV values, ${vectors.length} vectors`);
console.log(`warm: p50 ${f(q(warm, 0.5))} ms, p95 ${f(q(warm, 0.95))} ms, max ${f(warm[warm.length - 1])} ms`);
console.log(`of which, summed over every question asked: ${Object.entries(steps).map(([k, v]) => `${k} ${f(v)}`).join(", ")}`);
console.log(`cold isolate, first question: ${colds.map(f).join(", ")} ms`);
fs.rmSync(dir, { recursive: true, force: true });
