/**
 * Parsing `to` of POST /messages: plain names and emails skip JSON.parse (a thrown
 * SyntaxError was a sizeable part of a send's CPU); every text JSON could parse must be
 * read exactly as JSON.parse reads it.
 */
import { describe, expect, it } from "vitest";
import { parseChannelIndicator, parseUserIndicators } from "../../src/lib/addressee.js";
import { ApiError } from "../../src/errors.js";

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
  return "no error";
};

describe("parseChannelIndicator", () => {
  it("reads names, ids and one-element lists as before", () => {
    expect(parseChannelIndicator("general")).toEqual({ name: "general" });
    expect(parseChannelIndicator("news")).toEqual({ name: "news" }); // starts like `null`
    expect(parseChannelIndicator("Denmark 2")).toEqual({ name: "Denmark 2" });
    expect(parseChannelIndicator("")).toEqual({ name: "" });
    expect(parseChannelIndicator("\u00a05")).toEqual({ name: "\u00a05" }); // not JSON whitespace
    expect(parseChannelIndicator(" 5")).toEqual({ id: 5 });
    expect(parseChannelIndicator("[7]")).toEqual({ id: 7 });
    expect(parseChannelIndicator('["general"]')).toEqual({ name: "general" });
    expect(parseChannelIndicator('"quoted"')).toEqual({ name: "quoted" });
    expect(parseChannelIndicator("{not json")).toEqual({ name: "{not json" });
  });

  it("keeps upstream's messages for JSON of the wrong type", () => {
    expect(messageOf(() => parseChannelIndicator("true"))).toBe("Invalid data type for stream");
    expect(messageOf(() => parseChannelIndicator("null"))).toBe("Invalid data type for stream");
    expect(messageOf(() => parseChannelIndicator("[1, 2]"))).toBe("Cannot send to multiple streams");
  });
});

describe("parseUserIndicators", () => {
  it("reads emails, lists and ids as before", () => {
    expect(parseUserIndicators("a@example.com")).toEqual({ emails: ["a@example.com"] });
    expect(parseUserIndicators("a@example.com, b@example.com")).toEqual({ emails: ["a@example.com", "b@example.com"] });
    expect(parseUserIndicators("nora@example.com")).toEqual({ emails: ["nora@example.com"] }); // starts like `null`
    expect(parseUserIndicators("[3, 4]")).toEqual({ ids: [3, 4] });
    expect(parseUserIndicators('["a@example.com"]')).toEqual({ emails: ["a@example.com"] });
  });

  it("keeps upstream's messages for JSON of the wrong type", () => {
    expect(messageOf(() => parseUserIndicators("null"))).toBe("Invalid data type for recipients");
    expect(messageOf(() => parseUserIndicators("5"))).toBe("Invalid data type for recipients");
  });
});
