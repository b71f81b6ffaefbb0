import { describe, expect, it } from "vitest";
import { memoByText } from "../../src/lib/memo-by-text.js";

describe("memoByText", () => {
  it("computes a text's value once and keeps at most `max` texts, oldest out first", () => {
    const computed: string[] = [];
    const upper = memoByText(2, (text) => (computed.push(text), text.toUpperCase()));
    expect([upper("a"), upper("a"), upper("b")]).toEqual(["A", "A", "B"]);
    expect(computed).toEqual(["a", "b"]);
    upper("c"); // "a" goes
    expect([upper("b"), upper("c"), upper("a")]).toEqual(["B", "C", "A"]);
    expect(computed).toEqual(["a", "b", "c", "a"]);
  });
});
