// askzico's Worker: answers a site's visitors from the version a deploy made live, with the
// retrieval core compiled to WebAssembly (crates/wasm), so an answer here is the answer
// `askzico query` gives on the author's machine. This file owns the I/O: the pointer and the
// version's tables from Workers KV (cached in the isolate), per question one bulk read of
// its term shards in parallel with the embedding and the Vectorize query, then one or two
// bulk reads of the lookup records the core does not hold yet. Routes: GET /search, GET /
// (the search page), GET /embed.js (the embeddable search box), GET /health.

import { Lru } from "./cache";
import { Core, CoreError } from "./core";
import { embedScript, searchPage } from "./page";

interface KvLike {
  get(key: string, type: "text"): Promise<string | null>;
  get(keys: string[], type: "text"): Promise<Map<string, string | null>>;
}

interface VectorIndex {
  query(
    vector: number[],
    options: { topK: number; returnMetadata: "none" },
  ): Promise<{ matches: { id: string; score: number }[] }>;
}

interface Ai {
  run(model: string, input: { text: string[] }): Promise<{ data: number[][] }>;
}

interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

export interface Env {
  KV: KvLike;
  AI?: Ai;
  RATE_LIMITER?: RateLimiter;
  /** The deploy target's KV key prefix. */
  PREFIX?: string;
  /** Vectorize index name → the binding of that index (the pointer's `index` chooses). */
  INDEXES?: Record<string, string> | string;
  /** Origins allowed to call /search from a browser: `*`, or a comma-separated list. */
  ALLOWED_ORIGINS?: string;
  /** How long the pointer is taken as read before it is read again (default 30 s). */
  POINTER_TTL_SECONDS?: string;
  /** The isolate's cache of versions with their shards and records, in MB (default 64 of the
   * isolate's 128). */
  CACHE_MB?: string;
  /** How long a search response may be cached at the edge (default 60 s; 0: not at all). */
  CACHE_SECONDS?: string;
  [binding: string]: unknown;
}

/** Keys per KV bulk read (Cloudflare's limit). */
const BULK = 100;
/** The KV layouts this Worker reads (askzico_core::deployed::LAYOUT and those before it). */
const LAYOUTS = [2, 3, 4, 5];

interface Pointer {
  version: string;
  index: string;
  layout?: number;
}

interface Opened {
  handle: number;
  corpus_version: string;
  embedding: { provider: string; dims: number; model?: string };
  top_k: number;
}

interface Live {
  pointerText: string;
  pointer: Pointer;
  tablesText: string;
  /** The hash of the query settings the version was deployed with. */
  settings: string;
  opened: Opened;
  checkedAt: number;
}

/** A failure with its HTTP status. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly help = "",
  ) {
    super(message);
  }
}

const UPDATE = "update the Worker: `askzico worker init --target NAME` writes it anew, then `npx wrangler deploy`";

// Isolate state: the core and the versions opened in it (by version and key table), each with
// the term shards and lookup records it keeps.
let core: Core | undefined;
let versions: Lru<Promise<Opened>> | undefined;
let live: Live | undefined;
let refreshing: Promise<Live> | undefined;

/** A numeric variable, or `fallback` when it is unset or not a number. */
function num(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value === undefined || value.trim() === "" || !Number.isFinite(n) ? fallback : n;
}

/** The isolate's cache budget in bytes (CACHE_MB). */
function budget(env: Env): number {
  return Math.max(1, num(env.CACHE_MB, 64)) * 1024 * 1024;
}

function state(env: Env): { core: Core; versions: Lru<Promise<Opened>> } {
  if (!core) core = new Core();
  const c = core;
  // Opened versions: their tables, and the term shards and lookup records each keeps in the
  // core (SHARD_SHARE and RECORD_SHARE of the budget). Evicting a version frees its memory in
  // the core once its load has finished.
  versions ??= new Lru<Promise<Opened>>(budget(env), (_k, p) => {
    p.then((o) => c.close(o.handle)).catch(() => {});
  });
  return { core: c, versions };
}

/** The shares of the cache budget an opened version may keep of term shards and of lookup
 * records between questions (the rest: its tables). */
const SHARD_SHARE = 0.2;
const RECORD_SHARE = 0.45;

/** KV reads of one request, counted by what they read. */
class Reads {
  tables = 0;
  shards = 0;
  records = 0;
}

async function bulk(env: Env, keys: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const batches: string[][] = [];
  for (let i = 0; i < keys.length; i += BULK) batches.push(keys.slice(i, i + BULK));
  const got = await Promise.all(batches.map((b) => env.KV.get(b, "text")));
  for (const m of got) for (const [k, v] of m) out.set(k, v);
  return out;
}

/** Values, from KV in bulk reads of ≤ 100 keys, in the order of `keys` (null: absent). */
async function readValues(env: Env, keys: string[], count: (n: number) => void): Promise<(string | null)[]> {
  if (keys.length === 0) return [];
  count(Math.ceil(keys.length / BULK));
  const got = await bulk(env, keys);
  return keys.map((k) => got.get(k) ?? null);
}

function prefixOf(env: Env): string {
  return env.PREFIX ?? "";
}

function indexBinding(env: Env, index: string): string {
  const map = typeof env.INDEXES === "string" ? (JSON.parse(env.INDEXES) as Record<string, string>) : env.INDEXES ?? {};
  const binding = map[index];
  if (!binding) {
    throw new HttpError(
      503,
      "unknown-index",
      `the live version's vectors are in index \`${index}\`, which this Worker has no binding for`,
      UPDATE,
    );
  }
  return binding;
}

/** The live version: the pointer (read again after the TTL, with the key table it names, in one
 * bulk read), and the version opened in the core. */
async function liveVersion(env: Env, reads: Reads): Promise<Live> {
  const ttl = num(env.POINTER_TTL_SECONDS, 30) * 1000;
  if (live && Date.now() - live.checkedAt < ttl) return live;
  // One refresh at a time, shared by the requests that wait for it; bounded, so a refresh whose
  // request went away cannot hold every later request.
  refreshing ??= Promise.race([
    refresh(env, reads),
    new Promise<Live>((_, reject) =>
      setTimeout(() => reject(new HttpError(503, "kv-timeout", "reading the live version from KV took over 10 s", "try again")), 10_000),
    ),
  ]).finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

async function refresh(env: Env, reads: Reads): Promise<Live> {
  const prefix = prefixOf(env);
  const pointerKey = `${prefix}current`;
  const tablesKey = (v: string) => `${prefix}${v}/tables`;
  const keys = live ? [pointerKey, tablesKey(live.pointer.version)] : [pointerKey];
  reads.tables += 1;
  const got = await env.KV.get(keys, "text");
  const pointerText = got.get(pointerKey);
  if (pointerText == null) {
    throw new HttpError(503, "not-deployed", `nothing is deployed: KV has no pointer \`${pointerKey}\``, "deploy a build: `askzico deploy --target NAME`");
  }
  let pointer: Pointer;
  try {
    pointer = JSON.parse(pointerText) as Pointer;
    if (typeof pointer.version !== "string" || typeof pointer.index !== "string") throw new Error();
  } catch {
    throw new HttpError(503, "deployed", `the pointer \`${pointerKey}\` is not one askzico writes`, "deploy a build: `askzico deploy --target NAME`");
  }
  const layout = pointer.layout ?? 1;
  if (!LAYOUTS.includes(layout)) {
    throw layout > Math.max(...LAYOUTS)
      ? new HttpError(503, "layout", `the live version is stored in layout ${layout}; this Worker reads layouts ${LAYOUTS.join(", ")}`, UPDATE)
      : new HttpError(503, "layout", `the live version is stored in layout ${layout}, which this Worker does not read`, "deploy the build again with this askzico: the deploy upgrades the target in place");
  }
  indexBinding(env, pointer.index);
  let tablesText = live && live.pointer.version === pointer.version ? got.get(tablesKey(pointer.version)) : undefined;
  if (tablesText === undefined) {
    reads.tables += 1;
    tablesText = await env.KV.get(tablesKey(pointer.version), "text");
  }
  if (tablesText == null) {
    throw new HttpError(503, "deployed", `version ${pointer.version} has no key table \`${tablesKey(pointer.version)}\``, "deploy the build again: `askzico deploy --target NAME`");
  }
  const opened = await open(env, pointer.version, tablesText, reads);
  const settings = String((JSON.parse(tablesText) as { settings?: string }).settings ?? "");
  live = { pointerText, pointer, tablesText, settings, opened, checkedAt: Date.now() };
  return live;
}

/** A version opened in the core, once per isolate for each key table it was deployed with. */
function open(env: Env, version: string, tablesText: string, reads: Reads): Promise<Opened> {
  const s = state(env);
  const cacheKey = `${version}\n${tablesText}`;
  const held = s.versions.get(cacheKey);
  if (held) return held;
  const prefix = prefixOf(env);
  const loading = (async () => {
    const needed = s.core.call<{ keys: string[] }>("az_needed", { prefix, version }, [tablesText]);
    reads.tables += Math.ceil(needed.keys.length / BULK);
    const got = await bulk(env, needed.keys);
    const vals = needed.keys.map((k) => got.get(k) ?? null);
    const shardBytes = Math.floor(budget(env) * SHARD_SHARE);
    const recordBytes = Math.floor(budget(env) * RECORD_SHARE);
    const opened = s.core.call<Opened>("az_open", { prefix, version, shard_bytes: shardBytes, record_bytes: recordBytes }, [tablesText, ...vals]);
    const bytes = vals.reduce((n, v) => n + (v ? v.length * 4 : 0), tablesText.length + shardBytes + recordBytes);
    s.versions.set(cacheKey, Promise.resolve(opened), bytes);
    return opened;
  })();
  loading.catch(() => {});
  return loading;
}

interface Planned {
  question: number;
  shards: string[];
  embed: string | null;
  vector?: number[];
}

/** The vector index's matches for the question, or null (with the reason) when a ranker is
 * unavailable: the answer is then lexical and says so. */
async function vectorMatches(env: Env, l: Live, p: Planned, reasons: string[]): Promise<[string, number][] | null> {
  if (p.embed == null) return null;
  const spec = l.opened.embedding;
  let vector = p.vector;
  if (!vector) {
    if (spec.provider !== "workers-ai") {
      reasons.push(`the build's embedder (\`${spec.provider}\`) cannot run in a Worker: answered lexically`);
      return null;
    }
    if (!env.AI) {
      reasons.push("Workers AI is not bound (`AI`): answered lexically");
      return null;
    }
    try {
      const r = await env.AI.run(spec.model ?? "@cf/baai/bge-m3", { text: [p.embed] });
      vector = r.data[0];
    } catch (e) {
      reasons.push(`Workers AI failed (${String(e).slice(0, 200)}): answered lexically`);
      return null;
    }
  }
  const binding = indexBinding(env, l.pointer.index);
  const index = env[binding] as VectorIndex | undefined;
  if (!index || typeof index.query !== "function") {
    reasons.push(`the Vectorize index \`${l.pointer.index}\` is not reachable (binding \`${binding}\`): answered lexically`);
    return null;
  }
  try {
    const r = await index.query(vector, { topK: l.opened.top_k, returnMetadata: "none" });
    return r.matches.map((m) => [m.id, m.score]);
  } catch (e) {
    reasons.push(`Vectorize failed (${String(e).slice(0, 200)}): answered lexically`);
    return null;
  }
}

/** What a visitor asked, checked for shape (the core checks the rest). */
function ask(url: URL) {
  const p = url.searchParams;
  const kText = p.get("k");
  if (kText !== null && !/^[0-9]{1,3}$/.test(kText)) {
    throw new HttpError(400, "bad-request", "`k` must be a whole number from 1 to 20");
  }
  const mode = p.get("mode") ?? "fused";
  if (!["fused", "lexical", "vector"].includes(mode)) {
    throw new HttpError(400, "bad-request", "`mode` must be fused, lexical or vector");
  }
  return {
    q: p.get("q") ?? "",
    k: kText === null ? null : Number(kText),
    domains: p.getAll("domain"),
    libraries: p.getAll("library"),
    where: p.getAll("where"),
    mode,
  };
}

async function search(url: URL, env: Env, held?: Live): Promise<Response> {
  const started = Date.now();
  const reads = new Reads();
  const asked = ask(url);
  const l = held ?? (await liveVersion(env, reads));
  const { core: c } = state(env);
  const cpu: Record<string, number> = {};
  const timed = <T>(step: string, f: () => T): T => {
    const t = performance.now();
    try {
      return f();
    } finally {
      cpu[step] = (cpu[step] ?? 0) + performance.now() - t;
    }
  };
  const planned = timed("plan", () => c.call<Planned>("az_plan", { version: l.opened.handle, ask: asked }));
  try {
    const reasons: string[] = [];
    const [shards, matches] = await Promise.all([
      readValues(env, planned.shards, (n) => (reads.shards += n)),
      vectorMatches(env, l, planned, reasons),
    ]);
    const ranked = timed("rank", () =>
      c.call<{ records: string[]; stale: string[] }>("az_rank", { question: planned.question, matches }, shards),
    );
    if (ranked.stale.length > 0) {
      console.warn(JSON.stringify({ event: "stale-vectors", index: l.pointer.index, version: l.pointer.version, ids: ranked.stale }));
    }
    const records = await readValues(env, ranked.records, (n) => (reads.records += n));
    const answer = timed("answer", () => c.callText("az_answer", { question: planned.question }, records));
    const extra = {
      degraded: reasons.length > 0,
      reasons,
      reads: { tables: reads.tables, shards: reads.shards, records: reads.records },
      timings: { total_ms: Date.now() - started, plan_ms: cpu.plan, rank_ms: cpu.rank, answer_ms: cpu.answer },
    };
    // The core's answer is the bytes `askzico query --json` prints; the Worker's fields follow.
    const body = `${answer.slice(0, -1)},${JSON.stringify(extra).slice(1)}`;
    return json(body, 200, { "x-askzico-degraded": String(reasons.length > 0) });
  } catch (e) {
    c.drop(planned.question);
    throw e;
  }
}

async function health(env: Env): Promise<Response> {
  const l = await liveVersion(env, new Reads());
  return json(
    JSON.stringify({ version: l.pointer.version, index: l.pointer.index, layout: l.pointer.layout ?? 1, corpus_version: l.opened.corpus_version }),
    200,
  );
}

function json(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", ...headers },
  });
}

function errorResponse(e: unknown): Response {
  if (e instanceof HttpError) {
    return json(JSON.stringify({ error: { code: e.code, message: e.message, help: e.help } }), e.status);
  }
  if (e instanceof CoreError) {
    const status = e.code === "bad-request" ? 400 : e.code === "invariant" ? 500 : 503;
    if (status === 500) console.error(JSON.stringify({ event: "invariant", message: e.message }));
    return json(JSON.stringify({ error: { code: e.code, message: e.message, help: e.help } }), status);
  }
  console.error(JSON.stringify({ event: "internal", message: String(e) }));
  return json(JSON.stringify({ error: { code: "internal", message: "the search failed unexpectedly", help: "" } }), 500);
}

/** The CORS headers for a request's Origin: only an allowed origin gets them. */
function cors(request: Request, env: Env): Record<string, string> {
  const origin = request.headers.get("origin");
  const allowed = (env.ALLOWED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (allowed.includes("*")) return origin ? { "access-control-allow-origin": "*" } : {};
  // The answer depends on the Origin: caches must keep one per origin.
  if (origin && allowed.includes(origin)) return { "access-control-allow-origin": origin, vary: "Origin" };
  return { vary: "Origin" };
}

const PAGE_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

async function route(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === "OPTIONS") {
    return new Response(null, {
      status: 204,
      headers: { ...cors(request, env), "access-control-allow-methods": "GET", "access-control-max-age": "86400" },
    });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new HttpError(405, "method", "only GET is answered here");
  }
  switch (url.pathname) {
    case "/":
      return new Response(searchPage(), {
        headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP, "x-content-type-options": "nosniff" },
      });
    case "/embed.js":
      return new Response(embedScript(), {
        headers: { "content-type": "text/javascript; charset=utf-8", "access-control-allow-origin": "*", "cache-control": "public, max-age=300" },
      });
    case "/health":
      return health(env);
    case "/search":
      return cachedSearch(request, url, env, ctx);
    default:
      throw new HttpError(404, "not-found", "no such page: the Worker answers /, /search, /embed.js and /health");
  }
}

/** /search through the edge cache, keyed by the live version and the question's parameters. */
async function cachedSearch(request: Request, url: URL, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (env.RATE_LIMITER) {
    const key = request.headers.get("cf-connecting-ip") ?? "anonymous";
    const { success } = await env.RATE_LIMITER.limit({ key });
    if (!success) throw new HttpError(429, "rate-limited", "too many searches from this client: try again in a minute");
  }
  const seconds = num(env.CACHE_SECONDS, 60);
  if (!(seconds > 0) || typeof caches === "undefined") return search(url, env);
  const l = await liveVersion(env, new Reads());
  const params = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const key = new Request(`https://askzico.cache/${encodeURIComponent(l.pointer.version)}/${encodeURIComponent(l.settings)}/search?${new URLSearchParams(params)}`);
  const cache = (caches as unknown as { default: Cache }).default;
  const hit = await cache.match(key);
  if (hit) return hit;
  const fresh = await search(url, env, l);
  // A degraded answer (a ranker briefly unavailable) and a failure are not kept.
  if (fresh.status !== 200 || fresh.headers.get("x-askzico-degraded") === "true") return fresh;
  const stored = new Response(fresh.body, fresh);
  stored.headers.set("cache-control", `public, max-age=${seconds}`);
  ctx.waitUntil(cache.put(key, stored.clone()));
  return stored;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    let response: Response;
    try {
      response = await route(request, env, ctx);
    } catch (e) {
      response = errorResponse(e);
    }
    const headers = cors(request, env);
    if (Object.keys(headers).length === 0) return response;
    const out = new Response(response.body, response);
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
    return out;
  },
};
