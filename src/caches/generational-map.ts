/**
 * A map whose fills cannot resurrect flushed data: a filler reads `generation` before it
 * reads the database and stores with that number; every flush bumps the generation, so a
 * value read before an invalidation is dropped instead of stored.
 */
export class GenerationalMap<K, V> {
  private readonly map = new Map<K, V>();
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

  /** Reads through: the cached value, else `load()`'s, stored unless flushed meanwhile. */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const generation = this.gen;
    const value = await load();
    this.fill(key, value, generation);
    return value;
  }

  /** Forgets the entries `matches` selects (all of them without it). */
  flush(matches?: (key: K, value: V) => boolean): void {
    this.gen++;
    if (!matches) return this.map.clear();
    for (const [k, v] of this.map) if (matches(k, v)) this.map.delete(k);
  }
}
