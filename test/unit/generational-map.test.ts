/** The cache map under its callers' concurrency: shared loads, and no stale fill after a flush. */
import { describe, expect, it } from "vitest";
import { GenerationalMap } from "../../src/caches/generational-map.js";

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("GenerationalMap.getOrLoad", () => {
  it("lets concurrent misses of one key share one load", async () => {
    const map = new GenerationalMap<string, number>();
    const pending = deferred<number>();
    let loads = 0;
    const load = () => (loads++, pending.promise);
    const all = [map.getOrLoad("k", load), map.getOrLoad("k", load), map.getOrLoad("k", load)];
    pending.resolve(7);
    expect(await Promise.all(all)).toEqual([7, 7, 7]);
    expect(loads).toBe(1);
    expect(map.get("k")).toBe(7);
  });

  it("starts a new load for a miss after a flush, and stores only that one", async () => {
    const map = new GenerationalMap<string, number>();
    const before = deferred<number>();
    const first = map.getOrLoad("k", () => before.promise);
    map.flush();
    const second = map.getOrLoad("k", async () => 2);
    before.resolve(1);
    expect(await first).toBe(1);
    expect(await second).toBe(2);
    expect(map.get("k")).toBe(2);
  });

  it("a failed load is not shared with later misses", async () => {
    const map = new GenerationalMap<string, number>();
    await expect(map.getOrLoad("k", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await map.getOrLoad("k", async () => 3)).toBe(3);
  });
});
