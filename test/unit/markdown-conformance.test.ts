/**
 * Conformance against part of upstream's own Markdown golden corpus. The
 * corpus lives outside the repository (../shared/reference); without it the
 * suite is skipped.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderMarkdown, type MarkdownLookups } from "../../src/lib/markdown/index.js";

const corpusPath = fileURLToPath(new URL("../../../shared/reference/markdown-cases.json", import.meta.url));
const exists = existsSync(corpusPath);

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  translate_emoticons?: boolean;
  backend_only_rendering?: boolean;
}
interface Corpus {
  regular_tests: RegularCase[];
  linkify_tests: Array<[string, string, string]>;
}

/** Cases we cannot pass yet, each with the reason. The suite asserts they still fail. */
const KNOWN_GAPS = new Map<string, string>([
  ["fenced_quotes_inside_mathblock", "no TeX typesetting (KaTeX): math renders as a tex-error span"],
  ["tex_complex", "no TeX typesetting (KaTeX)"],
  ["tex_fenced_math", "no TeX typesetting (KaTeX)"],
  ["tex_money", "no TeX typesetting (KaTeX)"],
  ["tex_inline_permissive_spacing", "no TeX typesetting (KaTeX)"],
  ["tex_display_no_markdown_inside", "no TeX typesetting (KaTeX)"],
  ["inline_image", "no inline image previews (thumbnail block)"],
  ["deduplicate_inline_previews", "no inline image previews (thumbnail block)"],
  ["only_inline_video", "no inline video previews (camo URLs)"],
  ["unrecognized_emoji_sequence_one", "our emoji table (Emoji 16) knows the phoenix; upstream 8.0's did not"],
]);

// Upstream's test organization, as far as the corpus needs it.
const USERS = [
  { id: 10, full_name: "King Hamlet" },
  { id: 8, full_name: "Cordelia Lear" },
  { id: 12, full_name: "Othello, the Moor of Venice" },
  { id: 11, full_name: "Iago" },
  { id: 13, full_name: "Prospero from The Tempest" },
  { id: 9, full_name: "aaron" },
];
const CHANNELS = [
  { id: 1, name: "Verona" },
  { id: 2, name: "Denmark" },
  { id: 3, name: "Scotland" },
  { id: 4, name: "Venice" },
  { id: 5, name: "Rome" },
];
const GROUPS = [
  { id: 20, name: "hamletcharacters" },
  { id: 21, name: "support" },
];

/** The corpus's realm URL, as its "fragment_link" case uses it. */
function corpusRealmUrl(corpus: Corpus): string {
  const input = corpus.regular_tests.find((c) => c.name === "fragment_link")?.input ?? "";
  return /\((https?:\/\/[^/]+)\/#narrow/.exec(input)?.[1] ?? "http://localhost";
}

const baseLookups: Omit<MarkdownLookups, "realmUrl"> = {
  usersByName: (name) => USERS.filter((u) => u.full_name.toLowerCase() === name.toLowerCase()),
  userById: (id) => USERS.find((u) => u.id === id),
  groupByName: (name) => GROUPS.find((g) => g.name.toLowerCase() === name.toLowerCase()),
  channelByName: (name) => CHANNELS.find((c) => c.name === name),
  linkifiers: [],
};

function linkifyExpected([, template, url]: [string, string, string]): string {
  if (url === "") return template;
  const href = url.startsWith("http") ? url : url.includes("@") ? `mailto:${url}` : `http://${url}`;
  return template.replace("%s", `<a href="${href}">${url}</a>`);
}

describe.skipIf(!exists)("upstream Markdown corpus", () => {
  const corpus: Corpus = exists ? JSON.parse(readFileSync(corpusPath, "utf8")) : { regular_tests: [], linkify_tests: [] };
  const lookups: MarkdownLookups = { ...baseLookups, realmUrl: corpusRealmUrl(corpus) };
  let passed = 0;
  let total = 0;

  for (const c of corpus.regular_tests) {
    it(c.name, () => {
      total++;
      const html = renderMarkdown(c.input, { ...lookups, translateEmoticons: c.translate_emoticons === true }).html;
      const ok = html === c.expected_output || html === c.marked_expected_output;
      if (KNOWN_GAPS.has(c.name)) {
        expect(ok, `${c.name} now passes: remove it from KNOWN_GAPS`).toBe(false);
        return;
      }
      if (!ok) expect(html).toBe(c.expected_output);
      passed++;
    });
  }

  corpus.linkify_tests.forEach((t, i) => {
    const name = `linkify ${i}: ${t[0].slice(0, 40)}`;
    it(name, () => {
      total++;
      const html = renderMarkdown(t[0], lookups).html;
      if (KNOWN_GAPS.has(name)) {
        expect(html === linkifyExpected(t), `${name} now passes`).toBe(false);
        return;
      }
      expect(html).toBe(linkifyExpected(t));
      passed++;
    });
  });

  it("reports the pass count", () => {
    console.log(`upstream corpus: ${passed}/${total} cases pass, ${KNOWN_GAPS.size} known gaps`);
    expect(passed + KNOWN_GAPS.size).toBe(total);
  });
});
