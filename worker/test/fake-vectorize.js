// A test double of two Vectorize indexes and of Workers AI, bound to the Worker under test as
// RPC services with the bindings' method shapes. `query` reproduces how askzico reads an index
// (askzico_core::deployed::nearest): f32 values, f64 dot products, ties by chunk ID, the topK
// best, no filter. Each index holds the vectors `askzico export --format vectorize` wrote,
// stored as NDJSON in this worker's KV namespace under `index/<name>/<part>`. The variable
// FAIL=vectorize makes every query throw, FAIL=ai every embedding.

import { WorkerEntrypoint } from "cloudflare:workers";

const loaded = new Map();

async function vectorsOf(env, name) {
  if (!loaded.has(name)) {
    const all = [];
    for (let part = 0; ; part++) {
      const text = await env.VECTORS.get(`index/${name}/${part}`, "text");
      if (text == null) break;
      for (const line of text.split("\n")) {
        if (!line) continue;
        const v = JSON.parse(line);
        all.push({ id: v.id, values: Float32Array.from(v.values) });
      }
    }
    loaded.set(name, all);
  }
  return loaded.get(name);
}

class Index extends WorkerEntrypoint {
  async query(vector, options) {
    if (this.env.FAIL === "vectorize") throw new Error("Vectorize is unavailable (test double)");
    const q = Float32Array.from(vector);
    const scored = (await vectorsOf(this.env, this.name)).map(({ id, values }) => {
      let s = 0;
      for (let i = 0; i < values.length && i < q.length; i++) s += values[i] * q[i];
      return { id, score: s };
    });
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { matches: scored.slice(0, options.topK), count: Math.min(options.topK, scored.length) };
  }
}

export class IndexA extends Index {
  name = "askzico-a";
}

export class IndexB extends Index {
  name = "askzico-b";
}

export class FakeAi extends WorkerEntrypoint {
  async run(model, input) {
    if (this.env.FAIL === "ai") throw new Error("Workers AI is unavailable (test double)");
    const text = input.text[0];
    // A deterministic stand-in model: letter counts folded into 8 dimensions, normalized.
    const v = new Array(8).fill(0);
    for (const ch of text) v[ch.codePointAt(0) % 8] += 1;
    const n = Math.hypot(...v) || 1;
    return { shape: [1, 8], data: [v.map((x) => x / n)], model };
  }
}

export default {
  fetch() {
    return new Response("askzico test double of Vectorize and Workers AI");
  },
};
