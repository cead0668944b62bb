// A least-recently-used map under a byte budget: what the isolate keeps of content-addressed
// values (lexical shards, lookup records) and opened versions. Content-addressed values never
// go stale, so an entry lives until the budget needs its room.

export class Lru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private readonly capBytes: number,
    private readonly evicted: (key: string, value: V) => void = () => {},
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Re-inserting moves the entry to the young end of the map's order.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Stores `value`; the newest entry is kept even over the budget (everything older goes). */
  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.total -= old.bytes;
      this.entries.delete(key);
      if (old.value !== value) this.evicted(key, old.value);
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, e] of this.entries) {
      if (this.total <= this.capBytes) break;
      if (k === key) continue;
      this.entries.delete(k);
      this.total -= e.bytes;
      this.evicted(k, e.value);
    }
  }

  get bytes(): number {
    return this.total;
  }
}
