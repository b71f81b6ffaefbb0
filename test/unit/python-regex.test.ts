import { describe, expect, it } from "vitest";
import { compilePythonRegex, LinkifierPatternError } from "../../src/lib/markdown/python-regex.js";
import { userRegexStats, withUserRegex } from "../../src/lib/user-regex.js";
import {
  groupNotInPatternMessage,
  groupNotInTemplateMessage,
  INVALID_URL_TEMPLATE,
  urlTemplateVariables,
  validateLinkifier,
} from "../../src/lib/markdown/linkifiers.js";

function error(pattern: string): string {
  try {
    compilePythonRegex(pattern);
  } catch (e) {
    expect(e).toBeInstanceOf(LinkifierPatternError);
    return (e as Error).message;
  }
  throw new Error(`pattern ${pattern} compiled`);
}

function matches(pattern: string, text: string): Record<string, string> | null {
  const { source, flags, groupNumbers } = compilePythonRegex(pattern);
  const m = withUserRegex(source, flags, (re) => re.searchFrom(text, 0));
  if (!m) return null;
  const out: Record<string, string> = { $0: m.groups[0]! };
  for (const [name, n] of groupNumbers) if (m.groups[n] !== undefined) out[name] = m.groups[n]!;
  return out;
}

describe("compilePythonRegex", () => {
  it("converts named groups and reports their names", () => {
    const { groupNames } = compilePythonRegex("(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)");
    expect(groupNames).toEqual(["org", "repo", "id"]);
    expect(matches("(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)", "acme/widgets#123")).toEqual({
      $0: "acme/widgets#123", org: "acme", repo: "widgets", id: "123",
    });
  });

  it("accepts the patterns from upstream's linkifier tests", () => {
    for (const p of [
      "#(?P<id>[123])", "ZUL-(?P<id>\\d+)", "ZUL2-(?P<id>\\d+)", "_code=(?P<id>[0-9a-zA-Z]+)",
      "PR (?P<id>[0-9]+)", "lp/(?P<id>[0-9]+)", "lp:(?P<id>[0-9]+)", "!(?P<id>[0-9]+)",
      "FOO_(?P<id>[a-f]{5});(?P<zone>[a-f]);(?P<domain>[a-z]+);(?P<location>[a-z]+);(?P<name>[a-z]{2,8});(?P<chapter>[0-9]{2,3});(?P<fragment>[a-z]{2,8})",
    ]) {
      expect(() => compilePythonRegex(p)).not.toThrow();
    }
    expect(matches("ZUL-(?P<id>\\d+)", "ZUL-15")?.id).toBe("15");
    expect(matches("!(?P<id>[0-9]+)", "!123")?.id).toBe("123");
  });

  it("uses upstream's (RE2) error messages", () => {
    expect(error("(foo")).toBe("Bad regular expression: missing ): (foo");
    expect(error("ZUL-(?P<id>\\d????)")).toBe("Bad regular expression: bad repetition operator: ????");
    expect(error("a**")).toBe("Bad regular expression: bad repetition operator: **");
    expect(error("*a")).toBe("Bad regular expression: no argument for repetition operator: *");
    expect(error("[a-")).toBe("Bad regular expression: missing ]: [a-");
    expect(error("[z-a]")).toBe("Bad regular expression: invalid character class range: z-a");
    expect(error("a\\")).toBe("Bad regular expression: trailing \\");
    expect(error("\\q")).toBe("Bad regular expression: invalid escape sequence: \\q");
    expect(error("(a)\\1")).toBe("Bad regular expression: invalid escape sequence: \\1");
    expect(error("a{2,1}")).toBe("Bad regular expression: invalid repetition size: {2,1}");
    expect(error("(?P<id>a)(?P<id>b)")).toBe("Bad regular expression: invalid named capture group: (?P<id>");
    expect(error("foo)")).toBe("Bad regular expression: unexpected ): foo)");
  });

  it("rejects what RE2 does not support", () => {
    expect(error("a(?=b)")).toMatch(/^Bad regular expression: invalid perl operator: \(\?=/);
    expect(error("a(?!b)")).toMatch(/^Bad regular expression: invalid perl operator/);
    expect(error("(?<=a)b")).toMatch(/^Bad regular expression: invalid perl operator/);
    expect(error("(?P<x>a)(?P=x)")).toMatch(/^Bad regular expression: invalid perl operator/);
    expect(error("a\\Z")).toBe("Bad regular expression: invalid escape sequence: \\Z");
  });

  it("handles flags, anchors and RE2 escapes", () => {
    expect(compilePythonRegex("(?i)abc").flags).toBe("i");
    expect(matches("(?i)abc", "xABCx")?.$0).toBe("ABC");
    expect(matches("a(?i:b)c", "aBc")?.$0).toBe("aBc");
    expect(matches("a(?i:b)c", "aBC")).toBeNull();
    expect(matches("(?s)a.b", "a\nb")?.$0).toBe("a\nb");
    expect(matches("a.b", "a\nb")).toBeNull();
    expect(matches("(?m)^b$", "a\nb\nc")?.$0).toBe("b");
    expect(matches("\\Aab\\z", "ab")?.$0).toBe("ab");
    expect(matches("\\Aab\\z", "abc")).toBeNull();
    expect(matches("\\x{41}\\x42\\101", "ABA")?.$0).toBe("ABA");
    expect(matches("\\pL+", "héllo1")?.$0).toBe("héllo");
    expect(matches("\\p{Greek}+", "αβγ")?.$0).toBe("αβγ");
    expect(matches("[[:digit:]]+", "ab123")?.$0).toBe("123");
    expect(matches("\\Q.*\\E", "a.*b")?.$0).toBe(".*");
    expect(matches("a{2,3}?", "aaaa")?.$0).toBe("aa");
    expect(matches("(?U)a+", "aaa")?.$0).toBe("a");
    expect(matches("\\s", "\u00a0 ")?.$0).toBe(" ");
    expect(matches("x{", "x{")?.$0).toBe("x{");
    expect(matches("[]a]+", "]a]")?.$0).toBe("]a]");
    expect(matches("[-.]", "-")?.$0).toBe("-");
  });

  it("accepts nested repetitions: RE2 runs them in linear time", () => {
    expect(matches("(?P<id>(a+)+)b", "aaab")).toEqual({ $0: "aaab", id: "aaa" });
    expect(matches("(?P<id>(?:a|a)*b)", "a".repeat(5000) + "c")).toBeNull();
    expect(matches("((ab)*c)*", "ababcabc")?.$0).toBe("ababcabc");
  });

  it("refuses what RE2 refuses with RE2's reason", () => {
    expect(error("\\p{Klingon}")).toBe("Bad regular expression: invalid character class range: \\p{Klingon}");
    expect(error("a{1001}")).toBe("Bad regular expression: invalid repetition size: {1001}");
  });

  it("refuses patterns too large to compile quickly before handing them to RE2", () => {
    compilePythonRegex("\\pL\\pN"); // RE2 checks each property name once
    for (const p of ["(?P<x>\\pL{200})", "\\pL\\pN\\pL\\pN\\pL", "((a{100}){100}){3}", "(?P<x>[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000})"]) {
      const before = userRegexStats.compiled;
      expect(error(p), p).toBe("Bad regular expression: pattern too large - compile failed");
      expect(userRegexStats.compiled, p).toBe(before);
    }
    expect(() => compilePythonRegex("(?P<x>\\pL+)-(?P<id>\\d{1,10})")).not.toThrow();
  });

  it("keeps group names that are not JS identifiers", () => {
    expect(matches("(?P<1st>a)", "a")).toEqual({ $0: "a", "1st": "a" });
  });
});

describe("linkifier validation", () => {
  it("validates URL templates like upstream (RFC 6570)", () => {
    for (const url of [
      "http://example.com/", "https://user:password@example.com/", "https://example.com/@user/thing",
      "https://example.com/foo[bar]", "https://example.com/{foo}{bars}", "https://example.com/?foo={foo}",
      "https://example.com/%ab", "https://example.com/%%(foo)s", "https://example.com{/foo,bar,baz}",
      "https://example.com/{?foo*}", "https://example.com/{+foo,bar}", "https://chat{.domain}.com/{#foo}",
      "https://zone_{zone}{.domain}.net/ticket{/location}{/id}{?name,chapter}{#fragment:5}", "$not_a_url$",
    ]) {
      expect(urlTemplateVariables(url), url).not.toBeNull();
    }
    for (const url of ["https://example.com/{foo", "https://example.com/{{}", "https://example.com/{//foo}", "https://example.com/{bar++}"]) {
      expect(urlTemplateVariables(url), url).toBeNull();
    }
  });

  it("returns upstream's messages in upstream's order", () => {
    expect(validateLinkifier("", "https://realm.com/my_realm_filter/{id}")).toEqual([
      { field: "pattern", message: "This field cannot be blank." },
      { field: "__all__", message: "Group 'id' in URL template is not present in linkifier pattern." },
    ]);
    expect(validateLinkifier("(foo", "https://realm.com/my_realm_filter/{id}")[0].message).toBe(
      "Bad regular expression: missing ): (foo",
    );
    expect(validateLinkifier("ZUL-(?P<id>\\d+)", "$fgfg")[0].message).toBe(
      "Group 'id' in linkifier pattern is not present in URL template.",
    );
    expect(validateLinkifier("ZUL-(?P<id>\\d+)", "https://realm.com/my_realm_filter/{hello}")[0].message).toBe(
      "Group 'hello' in URL template is not present in linkifier pattern.",
    );
    expect(validateLinkifier("ZUL-(?P<id>\\d+)-(?P<hello>\\d+)", "https://realm.com/{hello}")[0].message).toBe(
      groupNotInTemplateMessage("id"),
    );
    expect(validateLinkifier("#(?P<id>[123])", "{id")).toEqual([{ field: "url_template", message: INVALID_URL_TEMPLATE }]);
    expect(validateLinkifier("ZULZ-(?P<hello>\\d+)-(?P<world>\\d+)", "https://realm.com/{hello}/{world}")).toEqual([]);
    expect(groupNotInPatternMessage("it's")).toBe(`Group "it's" in URL template is not present in linkifier pattern.`);
  });
});
