import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { userRegexStats } from "../../src/lib/user-regex.js";
import { collectReferences, renderMarkdown, topicLinks, type MarkdownLookups } from "../../src/lib/markdown/index.js";
import { emojiByName, emojiNameByCode, isValidEmojiCode } from "../../src/lib/emoji.js";
import { encodeHashComponent } from "../../src/lib/markdown/channel-links.js";

// A small test organization.
const TEST_USERS = [
  { id: 10, full_name: "King Hamlet" },
  { id: 8, full_name: "Cordelia Lear" },
  { id: 12, full_name: "Othello, the Moor of Venice" },
];
const TEST_GROUPS = [{ id: 20, name: "support" }];
const TEST_CHANNELS = [
  { id: 1, name: "Verona" },
  { id: 2, name: "Denmark" },
  { id: 3, name: "core team" },
];

const testLookups: MarkdownLookups = {
  usersByName: (name) => TEST_USERS.filter((u) => u.full_name.toLowerCase() === name.toLowerCase()),
  userById: (id) => TEST_USERS.find((u) => u.id === id),
  groupByName: (name) => TEST_GROUPS.find((g) => g.name.toLowerCase() === name.toLowerCase()),
  channelByName: (name) => TEST_CHANNELS.find((c) => c.name === name),
  linkifiers: [
    { id: 1, pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
    {
      id: 2,
      pattern: "(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)",
      url_template: "https://github.com/{org}/{repo}/issues/{id}",
    },
  ],
  realmUrl: "http://localhost:9991",
};

interface GoldenCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL("../fixtures/markdown-cases.json", import.meta.url)), "utf8"),
) as { cases: GoldenCase[] };

describe("golden Markdown cases", () => {
  it("has enough cases", () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(fixture.cases.map((c) => c.name)).size).toBe(fixture.cases.length);
  });
  for (const c of fixture.cases) {
    it(c.name, () => {
      const lookups = { ...testLookups, translateEmoticons: c.translate_emoticons === true };
      expect(renderMarkdown(c.input, lookups).html).toBe(c.expected_output);
    });
  }
});

describe("rendering side results", () => {
  it("collects mentioned users, groups and wildcards (not silent ones)", () => {
    const r = renderMarkdown(
      "@**King Hamlet** @_**Cordelia Lear** @**|12** @*support* @**all** @**topic**",
      testLookups,
    );
    expect([...r.mentionedUserIds].sort()).toEqual([10, 12]);
    expect([...r.mentionedGroupIds]).toEqual([20]);
    expect(r.streamWildcardMentioned).toBe(true);
    expect(r.topicWildcardMentioned).toBe(true);
  });

  it("silent and quoted mentions notify nobody", () => {
    const r = renderMarkdown("@_**King Hamlet** @_*support* @_**all** @_**topic**\n> @**Cordelia Lear** @*support* @**everyone**", testLookups);
    expect(r.mentionedUserIds.size).toBe(0);
    expect(r.mentionedGroupIds.size).toBe(0);
    expect(r.streamWildcardMentioned).toBe(false);
    expect(r.topicWildcardMentioned).toBe(false);
  });

  it("mentions inside code are not mentions", () => {
    const r = renderMarkdown("`@**King Hamlet**`\n```\n@**all**\n```", testLookups);
    expect(r.mentionedUserIds.size).toBe(0);
    expect(r.streamWildcardMentioned).toBe(false);
  });

  it("detects /me messages", () => {
    expect(renderMarkdown("/me is happy", testLookups).isMeMessage).toBe(true);
    expect(renderMarkdown("/me", testLookups).isMeMessage).toBe(true);
    expect(renderMarkdown("/meh", testLookups).isMeMessage).toBe(false);
    expect(renderMarkdown(" /me x", testLookups).isMeMessage).toBe(false);
  });

  it("reports links", () => {
    expect(renderMarkdown("see example.com", testLookups).hasLink).toBe(true);
    expect(renderMarkdown("#**Verona**", testLookups).hasLink).toBe(true);
    expect(renderMarkdown("plain <a href=x>", testLookups).hasLink).toBe(false);
    expect(renderMarkdown("plain", testLookups).hasImage).toBe(false);
  });
});

describe("safety", () => {
  const nasty = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "<time:\"><script>>",
    "```spoiler <img src=x>\n<iframe>\n```",
    "@**<b>x</b>**",
    "#**<i>y</i>>\"z**",
    "`<script>`",
    "<!-- comment -->",
    "<time:\" onmouseover=\"x>",
  ];
  for (const input of nasty) {
    it(`never emits raw HTML or script URLs for ${JSON.stringify(input)}`, () => {
      const html = renderMarkdown(input, testLookups).html;
      expect(html).not.toMatch(/<(script|img|iframe|b|i)\b/i);
      expect(html).not.toMatch(/<a\b[^>]*href="(javascript|data|vbscript):/i);
      expect(html).not.toMatch(/<!--/);
      expect(html).not.toMatch(/<[a-z]+\b[^>]*\son\w+=/i);
    });
  }
});

describe("collectReferences", () => {
  it("finds user names, ids, groups and channels", () => {
    const refs = collectReferences(
      "@**King Hamlet** @_**Iago|11** @**|12** @**all** @*support* @_*devs* #**Verona** #**core team>lunch**",
    );
    expect(refs.userNames.sort()).toEqual(["Iago", "King Hamlet"]);
    expect(refs.userIds.sort()).toEqual([11, 12]);
    expect(refs.groupNames.sort()).toEqual(["devs", "support"]);
    expect(refs.channelNames).toEqual(expect.arrayContaining(["Verona", "core team"]));
  });
  it("is empty for plain text", () => {
    expect(collectReferences("hello")).toEqual({ userNames: [], userIds: [], groupNames: [], channelNames: [] });
  });
  it("is returned with the render result", () => {
    expect(renderMarkdown("@**King Hamlet**", testLookups).references.userNames).toEqual(["King Hamlet"]);
  });
});

describe("topicLinks", () => {
  it("applies linkifiers and finds raw URLs, in order", () => {
    expect(topicLinks("fix #123 see acme/widgets#45 and example.com/x", testLookups.linkifiers)).toEqual([
      { text: "#123", url: "https://trac.example.com/ticket/123" },
      { text: "acme/widgets#45", url: "https://github.com/acme/widgets/issues/45" },
      { text: "example.com/x", url: "https://example.com/x" },
    ]);
  });
  it("prefers earlier linkifiers on overlap", () => {
    const linkifiers = [
      { id: 1, pattern: "ABC-(?P<id>[0-9]+)", url_template: "https://a.example/{id}" },
      { id: 2, pattern: "(?P<key>[A-Z]+)-(?P<id>[0-9]+)", url_template: "https://b.example/{key}/{id}" },
    ];
    expect(topicLinks("ABC-7 XY-8", linkifiers)).toEqual([
      { text: "ABC-7", url: "https://a.example/7" },
      { text: "XY-8", url: "https://b.example/XY/8" },
    ]);
  });
  it("keeps full URLs", () => {
    expect(topicLinks("https://github.com/a/b", [])).toEqual([
      { text: "https://github.com/a/b", url: "https://github.com/a/b" },
    ]);
  });
});

describe("linkifiers in messages", () => {
  it("expands RFC 6570 templates with encoding", () => {
    const lookups = {
      ...testLookups,
      linkifiers: [{ id: 1, pattern: "Q:(?P<q>[a-z ]+)!", url_template: "https://search.example/?{q}" }],
    };
    // "{q}" is a simple expansion: the space is percent-encoded.
    expect(renderMarkdown("Q:hello world!", lookups).html).toBe(
      '<p><a href="https://search.example/?hello%20world">Q:hello world!</a></p>',
    );
  });
  it("applies nested repetitions on RE2, in linear time", () => {
    const lookups = { ...testLookups, linkifiers: [{ id: 1, pattern: "(?P<id>(a+)+)b", url_template: "https://x/{id}" }] };
    const before = userRegexStats.searches;
    expect(renderMarkdown("a".repeat(40) + "c", lookups).html).toBe(`<p>${"a".repeat(40)}c</p>`);
    expect(userRegexStats.searches - before).toBe(1);
    expect(renderMarkdown("aaab", lookups).html).toBe('<p><a href="https://x/aaa">aaab</a></p>');
  });
  it("skips invalid patterns instead of failing", () => {
    const lookups = { ...testLookups, linkifiers: [{ id: 1, pattern: "(oops", url_template: "https://x/{id}" }] };
    expect(renderMarkdown("(oops", lookups).html).toBe("<p>(oops</p>");
  });
});

describe("emoji tables", () => {
  it("uses upstream's names", () => {
    expect(emojiByName("smile")).toEqual({ name: "smile", code: "1f642" });
    expect(emojiByName("smiley")?.code).toBe("1f603");
    expect(emojiByName("poop")?.code).toBe("1f4a9");
    expect(emojiByName("airplane")?.code).toBe("2708");
    expect(emojiByName("thumbs_up")?.code).toBe("1f44d");
    expect(emojiByName("+1")?.code).toBe("1f44d");
    expect(emojiByName("car")?.code).toBe("1f697");
    expect(emojiByName("hamburger")?.code).toBe("1f354");
    expect(emojiByName("fried_egg")).toBeUndefined();
    expect(emojiByName("skin-tone-2")).toBeUndefined();
    expect(emojiNameByCode("1f642")).toBe("smile");
    expect(emojiNameByCode("1f604")).toBe("big_smile");
    expect(isValidEmojiCode("1f4a9")).toBe(true);
    expect(isValidEmojiCode("zzzz")).toBe(false);
  });
});

describe("narrow URL encoding", () => {
  it("matches upstream's hash encoding", () => {
    expect(encodeHashComponent("some topic")).toBe("some.20topic");
    expect(encodeHashComponent("a.b%c")).toBe("a.2Eb.25c");
    expect(encodeHashComponent("(x)*!'~_-")).toBe(".28x.29*.21.27~_-");
    expect(encodeHashComponent("café")).toBe("caf.C3.A9");
  });
});

// Speed is measured by `npm run bench`, never by timed assertions here: these cases check
// that large and pathological inputs render completely (a blow-up trips the test timeout).
describe("large and pathological input", () => {
  it("renders every element of a 10,000-character message", () => {
    const para =
      "Hello @**King Hamlet**, see #**Verona>lunch** and https://example.com/a?b=c :smile: **bold** *em* `code` #123 👍\n";
    const copies = Math.floor(10000 / para.length);
    const html = renderMarkdown(para.repeat(copies), testLookups).html;
    expect(html.match(/<strong>bold<\/strong>/g)).toHaveLength(copies);
    expect(html.match(/<code>code<\/code>/g)).toHaveLength(copies);
    expect(html.match(/href="https:\/\/example.com\/a\?b=c"/g)).toHaveLength(copies);
  });
  it("handles pathological input without blowing up", () => {
    const inputs = ["*".repeat(5000), "`".repeat(5000), "[".repeat(3000), "@**".repeat(2000), ">".repeat(80) + " x", "a.".repeat(3000)];
    for (const s of inputs) {
      const html = renderMarkdown(s, testLookups).html;
      expect(html.length).toBeGreaterThan(0);
      expect(html.length).toBeLessThan(s.length * 100);
    }
  });
});
