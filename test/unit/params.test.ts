import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import { p, v } from "../../src/http/params/kinds.js";
import { parseParams, pathInt } from "../../src/http/params/parse.js";
import type { ApiRequest } from "../../src/http/request.js";
import { successBody } from "../../src/http/response.js";

function req(params: Record<string, string>, pathParams: Record<string, string> = {}): ApiRequest {
  return {
    params: new Map(Object.entries(params)),
    usedParams: new Set(),
    usedFramework: false,
    pathParams,
  } as unknown as ApiRequest;
}

function errorOf(fn: () => unknown): { msg: string; code: string; data: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { msg: e.message, code: e.code, data: e.data };
    throw e;
  }
  throw new Error("expected an error");
}

describe("parseParams", () => {
  it("parses each kind and applies defaults", () => {
    const r = req({ name: "  x ", n: "5", flag: "true", ids: "[1,2]" });
    const out = parseParams(r, {
      name: p.str(),
      n: p.int({ min: 1, max: 10 }),
      flag: p.bool().default(false),
      ids: p.intList(),
      missing: p.bool().default(true),
      opt: p.str().optional(),
    });
    expect(out).toEqual({ name: "  x ", n: 5, flag: true, ids: [1, 2], missing: true, opt: undefined });
    expect([...r.usedParams].sort()).toEqual(["flag", "ids", "n", "name"]);
  });

  it("reports the first error in declaration order", () => {
    const r = req({ a: "x", b: "y" });
    expect(errorOf(() => parseParams(r, { a: p.int(), b: p.bool() })).msg).toBe("a is not valid JSON");
    expect(errorOf(() => parseParams(req({}), { a: p.int(), b: p.bool() }))).toEqual({
      msg: "Missing 'a' argument",
      code: "REQUEST_VARIABLE_MISSING",
      data: { var_name: "a" },
    });
  });

  it("uses upstream's type messages", () => {
    const one = (raw: string, param: any) => errorOf(() => parseParams(req({ x: raw }), { x: param })).msg;
    expect(one("1.5", p.int())).toBe("x is not an integer");
    expect(one('"5"', p.int())).toBe("x is not an integer");
    expect(one("true", p.int())).toBe("x is not an integer");
    expect(one("0", p.int({ min: 1 }))).toBe("x is too small");
    expect(one("11", p.int({ max: 10 }))).toBe("x is too large");
    expect(one("3", p.int({ oneOf: [1, 2] }))).toBe("Invalid x");
    expect(one("1", p.bool())).toBe("x is not a boolean");
    expect(one("True", p.bool())).toBe("x is not valid JSON");
    expect(one("{}", p.intList())).toBe("x is not a list");
    expect(one('[1,"a"]', p.intList())).toBe("x[1] is not an integer");
    expect(one("abcdef", p.str({ maxLength: 5 }))).toBe("x is too long (limit: 5 characters)");
    expect(one("  ", p.str({ nonBlank: true }))).toBe("x cannot be blank");
    expect(one('{"a":1}', p.json(v.dict({ b: v.int() })))).toBe('Argument "a" at x["a"] is unexpected');
    expect(one("{}", p.json(v.dict({ b: v.int() })))).toBe("b key is missing from x");
    expect(one("[]", p.json(v.dict({ b: v.int() })))).toBe("x is not a dict");
  });

  it("counts string length in characters, not UTF-16 units", () => {
    const out = parseParams(req({ x: "😀😀" }), { x: p.str({ maxLength: 2 }) });
    expect(out.x).toBe("😀😀");
  });

  it("supports aliases and refuses both names at once", () => {
    expect(parseParams(req({ subject: "t" }), { topic: p.str().alias("subject") }).topic).toBe("t");
    expect(errorOf(() => parseParams(req({ topic: "a", subject: "b" }), { topic: p.str().alias("subject") }))).toEqual({
      msg: "Can't decide between 'topic' and 'subject' arguments",
      code: "REQUEST_CONFUSING_VAR",
      data: { var_name1: "topic", var_name2: "subject" },
    });
  });

  it("converts plain non-negative integers with the converter message", () => {
    const err = errorOf(() => parseParams(req({ n: "-1" }), { n: p.nonNegativeInt() }));
    expect(err).toEqual({ msg: "Bad value for 'n': -1", code: "REQUEST_VARIABLE_INVALID", data: { var_name: "n", bad_value: "-1" } });
  });

  it("reads path integers", () => {
    expect(pathInt(req({}, { id: "42" }), "id")).toBe(42);
  });
});

describe("ignored_parameters_unsupported", () => {
  it("lists unread parameters sorted, never client, only when the framework ran", () => {
    const r = req({ b: "1", a: "2", client: "x", used: "true" });
    expect(successBody(r, {})).toEqual({ result: "success", msg: "" });
    parseParams(r, { used: p.bool() });
    expect(successBody(r, { k: 1 })).toEqual({ result: "success", msg: "", k: 1, ignored_parameters_unsupported: ["a", "b"] });
  });
});
