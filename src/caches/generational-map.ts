/**
 * A map whose fills cannot resurrect flushed data: a filler reads `generation` before it
 * reads the database and stores with that number; every flush bumps the generation, so a
 * value read before an invalidation is dropped instead of stored.
 */
export class GenerationalMap<K, V> {
  private readonly map = new Map<K, V>();
  /** Loads running now, by key, with the generation each started at. */
  private readonly loading = new Map<K, { generation: number; value: Promise<V> }>();
  private gen = 0;

  /** Bounded: past `maxEntries` the map starts over (a cache, not a store). */
  constructor(private readonly maxEntries = 10_000) {}

  get generation(): number {
    return this.gen;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Stores the value only when nothing was flushed since `generation` was read. */
  fill(key: K, value: V, generation: number): void {
    if (generation !== this.gen) return;
    if (this.map.size >= this.maxEntries) this.map.clear();
    this.map.set(key, value);
  }

  /**
   * Reads through: the cached value, else `load()`'s, stored unless flushed meanwhile.
   * Misses of one key while its load runs, with no flush since it started, wait for that
   * load instead of starting their own (after a flush, twenty registrations at once
   * would otherwise each rebuild a 10k-user list).
   */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const generation = this.gen;
    const running = this.loading.get(key);
    if (running !== undefined && running.generation === generation) return running.value;
    const value = load().then((v) => {
      this.fill(key, v, generation);
      return v;
    });
    const entry = { generation, value };
    this.loading.set(key, entry);
    const done = () => {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    };
    value.then(done, done);
    return value;
  }

  /** Forgets the entries `matches` selects (all of them without it). */
  flush(matches?: (key: K, value: V) => boolean): void {
    this.gen++;
    if (!matches) return this.map.clear();
    for (const [k, v] of this.map) if (matches(k, v)) this.map.delete(k);
  }

  /** Forgets these keys (no sweep of the map: for caches with many entries flushed one by one). */
  flushKeys(keys: Iterable<K>): void {
    this.gen++;
    for (const k of keys) this.map.delete(k);
  }
}
