// The Worker in the real runtime (workerd, through `wrangler dev`), KV seeded from `askzico
// export --format kv` and Vectorize and Workers AI as test doubles. For each site:
// - conformance: every fixture question's /search answer is byte for byte `askzico query
//   --json` of the same build, in fused and lexical mode;
// - the KV budget once the version is held: no table read, at most 1 shard and 2 record bulk
//   reads per question;
// - bad input (400 with a reason), and the failure cases (degraded, 503, 500 invariant);
// and for the first site: a second deploy (blue → green), a rollback, and the search page in
// Chromium (browser.mjs).
//
// Env: ASKZICO_BIN (the askzico binary), ASKZICO_WORKER_DEPS (node_modules with wrangler,
// playwright-core and axe-core), ASKZICO_SITES (JSON: [{name, config, fixtures: [..],
// edit?: {file, text, question}}]), ASKZICO_WORK (a scratch folder).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { Deployment, answerPart, askzico, buildSite, cliAnswers, die, here, need, searchPath, wranglerBin } from "./harness.mjs";

const { hash: blake3 } = createRequire(path.join(need("ASKZICO_WORKER_DEPS"), "x.js"))("blake3-wasm");
const sites = JSON.parse(need("ASKZICO_SITES"));
const work = need("ASKZICO_WORK");
let failed = 0;

function check(what, f) {
  try {
    f();
    return true;
  } catch (e) {
    failed += 1;
    console.error(`FAIL ${what}: ${e.message.split("\n").slice(0, 12).join("\n")}`);
    return false;
  }
}

/** Every case's /search answer against the CLI's, in `mode`. */
async function conformance(d, site, build, mode) {
  const cases = cliAnswers(site.config, build.out, site.fixtures, mode);
  let same = 0;
  for (const c of cases) {
    const r = await d.get(searchPath(c.question, { mode, domains: c.domains }));
    const ok = check(`${site.name} ${mode} ${c.id}: /search answers as askzico query --json`, () => {
      assert.equal(r.status, 200, r.text.slice(0, 400));
      assert.equal(r.json.degraded, false, JSON.stringify(r.json.reasons));
      assert.equal(answerPart(r.text), c.line);
    });
    if (ok) same += 1;
  }
  console.log(`${site.name}: ${same}/${cases.length} fixture questions answered byte for byte as askzico query (${mode})`);
  assert.ok(cases.length > 0, "no fixture questions");
  return cases;
}

/** A fresh isolate that opened the live version for /health: no question reads a table, and
 * each makes at most 1 shard and 2 record bulk reads. */
async function budget(d, site, cases) {
  await d.restart();
  const max = { tables: 0, shards: 0, records: 0 };
  const sum = { shards: 0, records: 0 };
  let first;
  for (const c of cases.slice(0, 60)) {
    const r = await d.get(searchPath(c.question, { domains: c.domains }));
    if (r.status !== 200) continue;
    if (!first) {
      first = r.json.reads;
      continue;
    }
    for (const k of Object.keys(max)) max[k] = Math.max(max[k], r.json.reads[k]);
    sum.shards += r.json.reads.shards;
    sum.records += r.json.reads.records;
  }
  check(`${site.name}: KV reads per question within the budget`, () => {
    assert.ok(first && first.shards <= 1 && first.records <= 2, JSON.stringify(first));
    assert.equal(max.tables, 0, "a question read a table of a version already held");
    assert.ok(max.shards <= 1, `${max.shards} shard bulk reads`);
    assert.ok(max.records <= 2, `${max.records} record bulk reads`);
    assert.ok(sum.shards + sum.records > 0, "no question read anything: the count is not counting");
  });
  console.log(`${site.name}: KV bulk reads: first question ${JSON.stringify(first)}; then at most ${JSON.stringify(max)} a question`);
}

async function badInput(d, site, sample) {
  const long = "س".repeat(501);
  const bad = [
    ["empty question", "/search?q="],
    ["blank question", "/search?q=%20%20"],
    ["over-long question", `/search?q=${encodeURIComponent(long)}`],
    ["k of 0", searchPath(sample, { k: 0 })],
    ["k of 21", searchPath(sample, { k: 21 })],
    ["k not a number", `/search?q=x&k=abc`],
    ["unknown domain", searchPath(sample, { domains: ["<script>nope"] })],
    ["unknown library", searchPath(sample, { libraries: ["nope"] })],
    ["where without =", searchPath(sample, { where: ["nokey"] })],
    ["where of an unknown field", searchPath(sample, { where: ["nokey=1"] })],
    ["unknown mode", `/search?q=x&mode=psychic`],
  ];
  for (const [what, p] of bad) {
    const r = await d.get(p);
    check(`${site.name}: ${what} is a 400 saying why`, () => {
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.equal(r.json.error.code, "bad-request");
      assert.ok(r.json.error.message.length > 5);
      assert.ok(!/\bat .*:\d+:\d+/.test(r.text), "a stack trace in the response");
    });
  }
  const post = await d.get("/search?q=x", { method: "POST" });
  check(`${site.name}: POST is a 405`, () => assert.equal(post.status, 405));
  const nowhere = await d.get("/nowhere");
  check(`${site.name}: an unknown path is a JSON 404`, () => assert.equal(nowhere.json.error.code, "not-found"));
  const xss = await d.get(searchPath("<img src=x onerror=alert(1)> صفحة"));
  check(`${site.name}: a question with markup is answered as JSON, its text only in JSON strings`, () => {
    assert.equal(xss.status, 200);
    assert.match(xss.headers.get("content-type"), /application\/json/);
    assert.equal(xss.headers.get("x-content-type-options"), "nosniff");
    for (const h of xss.json.hits) assert.ok(!/<(?!\/?mark>)/.test(h.excerpt), "an excerpt with markup besides <mark>");
  });
}

async function failures(d, site, build, sample) {
  // Vectorize failing, and absent: the lexical answer, degraded, with the reason.
  await d.restart({ fail: "vectorize" });
  let r = await d.get(searchPath(sample));
  check(`${site.name}: Vectorize failing gives a degraded lexical answer`, () => {
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.degraded, true);
    assert.match(r.json.reasons.join(" "), /Vectorize failed/);
    assert.ok(r.json.hits.length > 0);
    assert.ok(r.json.hits.every((h) => h.vector === null));
  });
  await d.restart({ vectorize: false });
  r = await d.get(searchPath(sample));
  check(`${site.name}: no Vectorize binding (as in wrangler dev) gives a degraded lexical answer`, () => {
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.degraded, true);
    assert.match(r.json.reasons.join(" "), /not reachable/);
  });
  // The pointer naming an index the Worker has no binding for: 503 naming the fix.
  d.pointer(build.version, "askzico-elsewhere");
  await d.restart({});
  r = await d.get(searchPath(sample));
  check(`${site.name}: an unknown index is a 503 naming the fix`, () => {
    assert.equal(r.status, 503);
    assert.equal(r.json.error.code, "unknown-index");
    assert.match(r.json.error.help, /askzico worker init/);
  });
  // A newer layout than this Worker reads: 503, never a wrong answer.
  d.pointer(build.version, "askzico-a", 9);
  await d.restart();
  r = await d.get(searchPath(sample));
  check(`${site.name}: a newer layout is a 503 naming the update`, () => {
    assert.equal(r.status, 503);
    assert.equal(r.json.error.code, "layout");
    assert.match(r.json.error.help, /wrangler deploy/);
  });
  // A version whose key table names no query settings (deployed by an older askzico).
  const tablesKey = `${d.prefix}${build.version}/tables`;
  const tables = JSON.parse(build.pairs.find((p) => p.key === tablesKey).value);
  delete tables.settings;
  d.kvPut([{ key: tablesKey, value: JSON.stringify(tables) }]);
  d.pointer(build.version, "askzico-a");
  await d.restart();
  r = await d.get(searchPath(sample));
  check(`${site.name}: a version without its query settings is a 503 saying to deploy again`, () => {
    assert.equal(r.status, 503);
    assert.equal(r.json.error.code, "no-settings");
    assert.match(r.json.error.help, /askzico deploy/);
  });
  // A workers-ai embedder: the question embedded by Workers AI (the double), and a lexical
  // answer, degraded, when Workers AI fails.
  const ai = JSON.parse(build.pairs.find((p) => p.key === tablesKey).value);
  const settingsText = build.pairs.find((p) => p.key === `${d.prefix}s/${ai.settings}`).value;
  const settings = JSON.parse(settingsText);
  settings.embedding = { provider: "workers-ai", dims: 8, model: "@cf/baai/bge-m3" };
  const aiText = JSON.stringify(settings);
  ai.settings = blake3(aiText).toString("hex").slice(0, 32);
  d.kvPut([
    { key: `${d.prefix}s/${ai.settings}`, value: aiText },
    { key: tablesKey, value: JSON.stringify(ai) },
  ]);
  await d.restart();
  r = await d.get(searchPath(sample));
  check(`${site.name}: a workers-ai version embeds the question with Workers AI`, () => {
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.degraded, false, JSON.stringify(r.json.reasons));
    assert.ok(r.json.hits.some((h) => h.vector !== null), "no hit has a vector rank");
  });
  await d.restart({ fail: "ai" });
  r = await d.get(searchPath(sample));
  check(`${site.name}: Workers AI failing gives a degraded lexical answer`, () => {
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.degraded, true);
    assert.match(r.json.reasons.join(" "), /Workers AI failed/);
  });
  d.kvPut(build.pairs.filter((p) => p.key === tablesKey));
  await d.restart({});
  // A record the live version names but KV lacks: a 500 invariant, logged.
  const before = await (async () => {
    await d.restart();
    return d.get(searchPath(sample));
  })();
  const recordKeys = new Set(build.pairs.filter((p) => p.key.startsWith(`${d.prefix}r/`)).map((p) => p.key));
  const chunk = before.json.hits[0].chunk_id;
  const value = build.pairs.find((p) => recordKeys.has(p.key) && JSON.parse(p.value).text === before.json.hits[0].text);
  d.kvDelete([value.key]);
  await d.restart();
  r = await d.get(searchPath(sample));
  check(`${site.name}: a chunk that cannot be hydrated is a 500 invariant, logged`, () => {
    assert.equal(r.status, 500, r.text.slice(0, 300));
    assert.equal(r.json.error.code, "invariant");
    assert.ok(r.json.error.message.includes(chunk), r.json.error.message);
  });
  await new Promise((res) => setTimeout(res, 500));
  check(`${site.name}: the invariant failure is in the Worker's log`, () => assert.match(d.log, /"event":"invariant"/));
  d.kvPut([value]);
  // Nothing deployed: 503 naming what to deploy.
  d.kvDelete([`${d.prefix}current`]);
  await d.restart();
  r = await d.get(searchPath(sample));
  const health = await d.get("/health");
  check(`${site.name}: no pointer is a 503 naming the deploy`, () => {
    assert.equal(r.status, 503);
    assert.equal(r.json.error.code, "not-deployed");
    assert.match(r.json.error.help, /askzico deploy/);
    assert.equal(health.status, 503);
  });
  d.pointer(build.version, "askzico-a");
}

/** A second build deployed beside the first (green), then the pointer back (rollback). */
async function blueGreen(d, site, blue) {
  const file = site.edit.file;
  fs.appendFileSync(file, `\n\n${site.edit.text}\n`);
  const green = buildSite(path.join(work, `${site.name}-green`), site.config, d.prefix);
  assert.notEqual(green.version, blue.version);
  d.kvPut(green.pairs);
  d.loadIndex("askzico-b", green.vecDir);
  d.pointer(green.version, "askzico-b");
  await d.restart();
  let health = await d.get("/health");
  check(`${site.name}: after the second deploy the Worker serves the green version`, () => {
    assert.equal(health.json.version, green.version);
    assert.equal(health.json.index, "askzico-b");
  });
  const greenCases = await conformance(d, site, green, "fused");
  const r = await d.get(searchPath(site.edit.question));
  check(`${site.name}: the edit is found in the green version`, () => {
    assert.ok(r.json.hits.some((h) => h.text.includes(site.edit.text)), r.text.slice(0, 300));
  });
  d.pointer(blue.version, "askzico-a");
  await d.restart();
  health = await d.get("/health");
  check(`${site.name}: after the rollback the Worker serves the blue version again`, () => {
    assert.equal(health.json.version, blue.version);
  });
  const back = await d.get(searchPath(site.edit.question));
  check(`${site.name}: the rolled-back version does not have the edit`, () => {
    assert.ok(!back.json.hits.some((h) => h.text.includes(site.edit.text)));
  });
  return greenCases;
}

/** `askzico worker init` writes a Worker wrangler bundles and binds as the target says. */
function scaffold(site) {
  const dir = path.join(work, "scaffold");
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, "corpus.toml");
  const base = path.dirname(site.config);
  let text = fs
    .readFileSync(site.config, "utf8")
    .replaceAll('root = "', `allow_outside_root = true\nroot = "${base}/`);
  text += '\n[deploy.prod]\nkv_namespace_id = "0123456789abcdef0123456789abcdef"\nindexes = ["docs-blue", "docs-green"]\nprefix = "docs/"\n';
  fs.writeFileSync(config, text);
  const said = askzico(["worker", "init", "--config", config, "--target", "prod", path.join(dir, "w")]);
  const r = spawnSync(wranglerBin(), ["deploy", "--dry-run", "--outdir", path.join(dir, "dist")], {
    cwd: path.join(dir, "w"),
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  check("askzico worker init writes a Worker wrangler bundles, with the target's bindings", () => {
    assert.match(said, /npx wrangler deploy/);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    for (const b of ["env.KV (0123456789abcdef0123456789abcdef)", "env.VECTORIZE_0 (docs-blue)", "env.VECTORIZE_1 (docs-green)", "env.RATE_LIMITER", 'env.PREFIX ("docs/")']) {
      assert.ok(r.stdout.includes(b), `wrangler does not list ${b}:\n${r.stdout}`);
    }
  });
  const size = r.stdout.match(/Total Upload: ([^\n]+)/);
  console.log(`askzico worker init: wrangler bundles it (${size ? size[1] : "size not printed"})`);
}

scaffold(sites[0]);

for (const [n, site] of sites.entries()) {
  const dir = path.join(work, site.name);
  fs.mkdirSync(dir, { recursive: true });
  const prefix = n === 0 ? "" : `${site.name}/`;
  const blue = buildSite(dir, site.config, prefix);
  const d = new Deployment(dir, { prefix });
  d.kvPut(blue.pairs);
  d.loadIndex("askzico-a", blue.vecDir);
  d.pointer(blue.version, "askzico-a");
  await d.start();
  try {
    const health = await d.get("/health");
    check(`${site.name}: /health names the live version and index`, () => {
      assert.equal(health.status, 200, health.text);
      assert.equal(health.json.version, blue.version);
      assert.equal(health.json.index, "askzico-a");
    });
    const cases = await conformance(d, site, blue, "fused");
    await conformance(d, site, blue, "lexical");
    await budget(d, site, cases);
    const sample = cases[0].question;
    await badInput(d, site, sample);
    if (site.browser) {
      const b = spawnSync(process.execPath, [path.join(here, "browser.mjs"), d.base], {
        stdio: "inherit",
        env: { ...process.env, ASKZICO_BROWSER_QUESTION: site.browser },
      });
      check(`${site.name}: the search page in Chromium`, () => assert.equal(b.status, 0, "browser.mjs failed"));
    }
    if (site.edit) await blueGreen(d, site, blue);
    if (site.failures) await failures(d, site, blue, sample);
  } finally {
    await d.stop();
  }
}

if (failed > 0) die(`${failed} Worker check(s) failed`);
console.log("ok: the Worker in workerd");
