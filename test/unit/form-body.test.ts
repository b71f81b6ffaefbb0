import { describe, expect, it } from "vitest";
import { checkQueryString, parseFormBody } from "../../src/http/body/form.js";
import { v } from "../../src/http/params/kinds.js";
import { ApiError } from "../../src/errors.js";

const form = (s: string) => ({ ...parseFormBody(Buffer.from(s, "latin1")) });

describe("strict form decoding", () => {
  it("decodes names and values, + as space, repeated names as lists, bare names as empty", () => {
    expect(form("a=1&b=x+y&c=caf%C3%A9&a=2&flag&&d=")).toEqual({ a: ["1", "2"], b: "x y", c: "café", flag: "", d: "" });
    expect(form("")).toEqual({});
    // A name like __proto__ is an ordinary key (the result has no prototype).
    expect(Object.entries(parseFormBody(Buffer.from("__proto__=1")))).toEqual([["__proto__", "1"]]);
  });

  it("refuses escapes that are not UTF-8, broken escapes and raw non-UTF-8 bytes", () => {
    for (const body of ["content=a%FF%FEb", "a=%E2%82", "a=100%", "a=%zz", "%FF=1", "a=\xff"]) {
      expect(() => parseFormBody(Buffer.from(body, "latin1")), body).toThrow("Invalid UTF-8 or percent-encoding in the request body");
    }
  });

  it("checks query strings the same way, ignoring the fragment", () => {
    expect(() => checkQueryString("/api/v1/users/me?client=caf%C3%A9&x=1#%FF")).not.toThrow();
    expect(() => checkQueryString("/api/v1/users/me")).not.toThrow();
    expect(() => checkQueryString("/api/v1/users/me?client=%FF")).toThrow("Invalid UTF-8 or percent-encoding in the query string");
  });
});

describe("list bounds", () => {
  it("bounds every JSON list at 1,000 items unless the parameter says otherwise", () => {
    const list = v.list(v.int());
    expect(list(Array.from({ length: 1000 }, () => 1), "ids")).toHaveLength(1000);
    expect(() => list(Array.from({ length: 1001 }, () => 1), "ids")).toThrow(new ApiError("ids is too long (limit: 1000 items)"));
    expect(() => v.list(v.int(), { maxLength: 2 })([1, 2, 3], "x")).toThrow("x is too long (limit: 2 items)");
  });
});
