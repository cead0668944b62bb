// The retrieval core in WebAssembly (crates/wasm): the Worker hands it what KV and Vectorize
// returned and it does every step of a question with the code `askzico query` runs. Inputs
// are framed as the crate documents: a JSON header, then values, each a little-endian u32
// length (0xFFFFFFFF: no value) and its UTF-8 bytes.

import wasmModule from "../askzico.wasm";

interface Exports {
  memory: WebAssembly.Memory;
  az_alloc(len: number): number;
  az_free(ptr: number, len: number): void;
  az_out_ptr(): number;
  az_out_len(): number;
  az_needed(ptr: number, len: number): number;
  az_open(ptr: number, len: number): number;
  az_close(handle: number): void;
  az_plan(ptr: number, len: number): number;
  az_rank(ptr: number, len: number): number;
  az_answer(ptr: number, len: number): number;
  az_drop(question: number): void;
}

/** A failure the core reported: `code` decides the HTTP status. */
export class CoreError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

type Op = "az_needed" | "az_open" | "az_plan" | "az_rank" | "az_answer";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Core {
  private readonly x: Exports;

  constructor() {
    this.x = new WebAssembly.Instance(wasmModule, {}).exports as unknown as Exports;
  }

  /** Runs `op` over `header` and `values`; the result as JSON text, or a CoreError. */
  callText(op: Op, header: unknown, values: (string | null | undefined)[] = []): string {
    const parts = [encoder.encode(JSON.stringify(header)), ...values.map((v) => (v == null ? null : encoder.encode(v)))];
    const len = parts.reduce((n, p) => n + 4 + (p ? p.length : 0), 0);
    const ptr = this.x.az_alloc(len);
    try {
      const mem = new Uint8Array(this.x.memory.buffer, ptr, len);
      const view = new DataView(this.x.memory.buffer, ptr, len);
      let at = 0;
      for (const p of parts) {
        view.setUint32(at, p ? p.length : 0xffffffff, true);
        at += 4;
        if (p) {
          mem.set(p, at);
          at += p.length;
        }
      }
      const status = this.x[op](ptr, len);
      const out = decoder.decode(new Uint8Array(this.x.memory.buffer, this.x.az_out_ptr(), this.x.az_out_len()));
      if (status !== 0) {
        const e = JSON.parse(out).error;
        throw new CoreError(e.code, e.message, e.help ?? "");
      }
      return out;
    } finally {
      this.x.az_free(ptr, len);
    }
  }

  call<T>(op: Op, header: unknown, values: (string | null | undefined)[] = []): T {
    return JSON.parse(this.callText(op, header, values)) as T;
  }

  close(handle: number): void {
    this.x.az_close(handle);
  }

  drop(question: number): void {
    this.x.az_drop(question);
  }
}
