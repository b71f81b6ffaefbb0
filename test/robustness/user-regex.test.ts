/**
 * Every user-supplied regular expression runs in linear time: linkifier patterns are
 * compiled only on RE2 (lib/user-regex.ts), never on JavaScript's backtracking engine,
 * and text users write (alert words) is never compiled into a JavaScript regex.
 * Checked by counting (which engine ran, how many searches), not by timing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel } from "../support/messages.js";
import { USER_REGEX_ENGINE, userRegexStats, withUserRegex } from "../../src/lib/user-regex.js";
import { topicLinkStats } from "../../src/lib/topic-links.js";
import { containsAlertWord } from "../../src/lib/alert-words.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await makeChannel(s, "regex", { subscribers: [s.realm.member, s.realm.admin] });
});
afterAll(() => s?.close());

/** Sources of every JavaScript regex executed while `fn` runs. */
async function jsRegexSources(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = RegExp.prototype.exec;
  // With exec replaced, V8 routes test/match/replace/split through it as well.
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    seen.push(this.source);
    return original.call(this, input);
  };
  try {
    await fn();
  } finally {
    RegExp.prototype.exec = original;
  }
  return seen;
}

const linkifierIds: number[] = [];
afterEach(async () => {
  for (const id of linkifierIds.splice(0)) await s.api.delete(s.realm.admin, `/realm/filters/${id}`);
});

async function addLinkifier(pattern: string, urlTemplate: string) {
  const res = await s.api.post(s.realm.admin, "/realm/filters", { pattern, url_template: urlTemplate });
  if (res.statusCode === 200) linkifierIds.push(JSON.parse(res.body).id);
  return res;
}

const send = (content: string, topic = "t") =>
  s.api.post(s.realm.member, "/messages", { type: "stream", to: "regex", topic, content }).then(expectSuccess);
const renderedOf = async (id: number) => (await s.db.selectFrom("messages").select("rendered_content").where("id", "=", id).executeTakeFirstOrThrow()).rendered_content;
const fetchNewest = (n = 5) =>
  s.api.get(s.realm.member, "/messages", { anchor: "newest", num_before: n, num_after: 0 }).then(expectSuccess);

/** Catastrophic for a backtracking engine; each holds the marker QQZ to spot it in the JS engine. */
const CATASTROPHIC = [
  "QQZ(?P<id>(?:a|a)*b)",
  "QQZ(?P<id>(a+)+b)",
  "QQZ(?P<id>(a|aa)+c)",
  "QQZ(?P<id>(a*)*b)",
  "QQZ(?P<id>(.*a){12})",
  "QQZ(?P<id>([a-z]+\\s?)+!)",
  "QQZ(?P<id>(\\w+\\d*)+\\.)",
  "QQZ(?P<id>(a|a?)+b)",
];
const INPUTS = ["a".repeat(30), "a".repeat(5000), "a ".repeat(2000), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"];

describe("every user-supplied regular expression runs in linear time", () => {
  it("no JavaScript RegExp is compiled from user text; only lib/user-regex loads the RE2 engine", () => {
    // Every `RegExp(` in the server, with why its source is fixed by the code.
    const allowed: Record<string, string> = {
      "src/lib/markdown/web-links.ts": "the link regex built from the TLD list",
      "src/lib/markdown/emoji-rules.ts": "the emoji regex built from fixed ranges",
      "src/lib/notification-bot.ts": "a copy of a fixed regex",
      "src/lib/markdown/python-regex-atoms.ts": "POSIX class table ([[:^alpha:]])",
    };
    const found: string[] = [];
    const importers: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith(".ts")) {
          const text = readFileSync(path, "utf8");
          if (/\bRegExp\(/.test(text)) found.push(path);
          if (/from "re2-wasm"/.test(text)) importers.push(path);
        }
      }
    };
    walk("src");
    expect(found.sort()).toEqual(Object.keys(allowed).sort());
    expect(importers).toEqual(["src/lib/user-regex.ts"]);
  });

  it("the engine is RE2 and frees what it does not keep", () => {
    const before = { ...userRegexStats };
    withUserRegex("(?:a|a)*b", "", (re) => {
      expect(re.engine).toBe(USER_REGEX_ENGINE);
      expect(USER_REGEX_ENGINE).toBe("re2");
      expect(re.searchFrom("a".repeat(100_000), 0)).toBeNull();
    });
    // One window doubling from 256 characters to the whole text: 10 searches, not 2^n steps.
    expect(userRegexStats.searches - before.searches).toBe(10);
    for (let i = 0; i < 20; i++) withUserRegex(`x${i}(a+)+`, "", () => null);
    // Only a couple of programs stay alive; the rest were freed.
    expect(userRegexStats.compiled - userRegexStats.freed).toBeLessThanOrEqual(2);
  });

  it("catastrophic linkifier patterns are refused or evaluated by RE2, in messages and topics", async () => {
    for (const pattern of CATASTROPHIC) {
      const res = await addLinkifier(pattern, "https://x.example/{id}");
      if (res.statusCode !== 200) {
        expect(JSON.parse(res.body).msg, pattern).toMatch(/^Bad regular expression: /);
        continue;
      }
      const before = { ...userRegexStats };
      const sources = await jsRegexSources(async () => {
        for (const text of INPUTS) {
          const { id } = await send("QQZ" + text, "QQZ" + text.slice(0, 50));
          expect(await renderedOf(id), pattern).toContain("QQZa");
        }
        await fetchNewest(INPUTS.length);
      });
      expect(sources.filter((src) => src.includes("QQZ")), pattern).toEqual([]);
      // RE2 did the work: a bounded number of windowed searches per text, not a search per position.
      const searches = userRegexStats.searches - before.searches;
      expect(searches, pattern).toBeGreaterThan(0);
      expect(searches, pattern).toBeLessThanOrEqual(INPUTS.length * 2 * 12);
      await s.api.delete(s.realm.admin, `/realm/filters/${linkifierIds.pop()}`);
    }
  });

  it("patterns RE2 cannot run are refused with upstream's message, changing nothing", async () => {
    const rows = () => s.db.selectFrom("linkifiers").selectAll().orderBy("id").execute();
    const before = await rows();
    for (const [pattern, msg] of [
      ["(?P<id>a)\\1", "Bad regular expression: invalid escape sequence: \\1"],
      ["(?P<id>a)(?=b)", "Bad regular expression: invalid perl operator: (?="],
      ["(?P<id>a++)", "Bad regular expression: bad repetition operator: ++"],
      ["(?P<id>\\pL{200})", "Bad regular expression: pattern too large - compile failed"],
    ]) {
      expectError(await addLinkifier(pattern, "https://x.example/{id}"), msg);
    }
    expect(await rows()).toEqual(before);
  });

  it("alert words are matched as plain text", () => {
    expect(containsAlertWord("see (a+)+ here", "(a+)+")).toBe(true);
    expect(containsAlertWord("a".repeat(10_000), "(a+)+")).toBe(false);
    expect(containsAlertWord("xfoo foo_ foo", "foo")).toBe(true);
    expect(containsAlertWord("xfoo foo_ 1foo", "foo")).toBe(false);
    expect(containsAlertWord("😀foo!", "foo")).toBe(true);
    expect(containsAlertWord("éfoo", "foo")).toBe(false);
  });
});

describe("issue 8, finding 3: a linkifier could freeze the server", () => {
  it("the reported pattern renders a 30-a message on RE2 and still links what it matches", async () => {
    expectSuccess(await addLinkifier("(?P<id>(?:a|a)*b)", "https://x.example/{id}"));
    const before = { ...userRegexStats };
    const plain = await send("a".repeat(30));
    expect(await renderedOf(plain.id)).toBe(`<p>${"a".repeat(30)}</p>`);
    expect(userRegexStats.searches - before.searches).toBeLessThanOrEqual(2);
    const linked = await send("aaab");
    expect(await renderedOf(linked.id)).toBe('<p><a href="https://x.example/aaab">aaab</a></p>');
  });

  it("topic links are computed once, not on every fetch", async () => {
    expectSuccess(await addLinkifier("(?P<id>(?:a|a)*b)", "https://x.example/{id}"));
    await send("hi", "a".repeat(28));
    await send("hi", "aab topic");
    await fetchNewest();
    const computed = topicLinkStats.computed;
    const body = await fetchNewest();
    expect(topicLinkStats.computed).toBe(computed);
    const links = Object.fromEntries(body.messages.map((m: { subject: string; topic_links: unknown }) => [m.subject, m.topic_links]));
    expect(links["a".repeat(28)]).toEqual([]);
    expect(links["aab topic"]).toEqual([{ text: "aab", url: "https://x.example/aab" }]);
  });

  it("stored topic links follow linkifiers being added, edited, reordered and removed", async () => {
    const topic = "see #12 and PR-12";
    await send("hi", topic);
    const linksNow = async () => (await fetchNewest(1)).messages[0].topic_links;
    expect(await linksNow()).toEqual([]);
    const hash = expectSuccess(await addLinkifier("#(?P<id>[0-9]+)", "https://t.example/{id}")).id;
    expect(await linksNow()).toEqual([{ text: "#12", url: "https://t.example/12" }]);
    const pr = expectSuccess(await addLinkifier("PR-(?P<id>[0-9]+)", "https://pr.example/{id}")).id;
    expect(await linksNow()).toEqual([
      { text: "#12", url: "https://t.example/12" },
      { text: "PR-12", url: "https://pr.example/12" },
    ]);
    expectSuccess(await s.api.patch(s.realm.admin, `/realm/filters/${hash}`, { pattern: "#(?P<id>[0-9]+)", url_template: "https://new.example/{id}" }));
    expect((await linksNow())[0]).toEqual({ text: "#12", url: "https://new.example/12" });
    expectSuccess(await s.api.patch(s.realm.admin, "/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([pr, hash]) }));
    expect(await linksNow()).toEqual([
      { text: "#12", url: "https://new.example/12" },
      { text: "PR-12", url: "https://pr.example/12" },
    ]);
    expectSuccess(await s.api.delete(s.realm.admin, `/realm/filters/${hash}`));
    linkifierIds.splice(linkifierIds.indexOf(hash), 1);
    expect(await linksNow()).toEqual([{ text: "PR-12", url: "https://pr.example/12" }]);
  });
});
