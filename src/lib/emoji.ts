/**
 * Unicode emoji name/codepoint tables, shared by the Markdown renderer,
 * reactions and user status.
 *
 * Codes are upstream-style: lowercase hex codepoints joined by "-", with every
 * U+FE0F (variation selector 16) removed, e.g. "1f44d", "0023-20e3",
 * "1f937-200d-2640".
 *
 * The data comes from emoji-datasource (loaded once, lazily). Upstream names
 * emoji with its own curated table, which differs from emoji-datasource's
 * short names in places; UPSTREAM_NAMES below reproduces upstream's names for
 * the emoji we know differ.
 */
import { createRequire } from "node:module";

interface RawEmoji {
  unified: string;
  short_names: string[];
  name: string | null;
  category: string;
}

/**
 * Upstream's names for emoji whose emoji-datasource short names differ.
 * Upstream picked its own canonical names (e.g. it calls U+1F642 "smile",
 * whereas emoji-datasource's "smile" is U+1F604, which upstream calls
 * "big_smile"). For a code listed here, only these names are used; the
 * datasource's names for that code are dropped, as upstream does (for
 * example, upstream has no "fried_egg" emoji: it calls U+1F373 "cooking").
 * Entries: [code, canonical name, ...aliases].
 */
const UPSTREAM_NAMES: ReadonlyArray<readonly [string, string, ...string[]]> = [
  ["1f600", "grinning", "happy"],
  ["1f601", "grinning_face_with_smiling_eyes"],
  ["1f602", "joy", "tears", "laughter_tears"],
  ["1f603", "smiley"],
  ["1f604", "big_smile"],
  ["1f606", "laughing", "lol"],
  ["1f642", "smile", "slightly_smiling_face"],
  ["1f641", "frown", "slight_frown"],
  ["2639", "sad", "big_frown"],
  ["1f4a9", "poop", "pile_of_poo"],
  ["1f44d", "+1", "thumbs_up", "like"],
  ["1f44e", "-1", "thumbs_down"],
  ["1f408", "cat"],
  ["1f431", "kitten"],
  ["1f415", "dog"],
  ["1f436", "puppy"],
  ["1f384", "holiday_tree", "christmas_tree"],
  ["2797", "division"],
  ["2b06", "up"],
  ["1f937-200d-2640", "woman_shrugging"],
  ["1f937-200d-2642", "man_shrugging"],
  ["1f441-200d-1f5e8", "eye_in_speech_bubble"],
  ["0023-20e3", "hash"],
  ["1f916", "robot"],
  ["2764", "heart", "love"],
  ["1f373", "cooking"],
  ["1f610", "neutral"],
  ["1f615", "oh_no", "half_frown", "concerned", "confused"],
  ["1f61d", "stuck_out_tongue"],
  ["1f61b", "mischievous"],
  ["1f61c", "stuck_out_tongue_wink", "joking", "crazy"],
  ["2708", "airplane"],
  ["1f697", "car"],
  ["1f354", "hamburger"],
  ["1f389", "tada"],
  ["1f44f", "clap", "applause"],
  ["1f64f", "pray", "welcome", "thank_you", "namaste"],
];

interface Tables {
  codeByName: Map<string, string>;
  nameByCode: Map<string, string>;
  /** Every name each code is accepted under, the canonical one first. */
  namesByCode: Map<string, string[]>;
}

let tables: Tables | undefined;

/** Upstream-style code for an emoji-datasource `unified` value. */
function codeFromUnified(unified: string): string {
  return unified
    .toLowerCase()
    .split("-")
    .filter((part) => part !== "fe0f")
    .join("-");
}

function build(): Tables {
  const require = createRequire(import.meta.url);
  const raw = require("emoji-datasource/emoji.json") as RawEmoji[];
  const codeByName = new Map<string, string>();
  const nameByCode = new Map<string, string>();
  const overridden = new Map<string, readonly string[]>();
  for (const [code, ...names] of UPSTREAM_NAMES) overridden.set(code, names);
  const claimed = new Set<string>();
  for (const names of overridden.values()) for (const n of names) claimed.add(n);

  for (const e of raw) {
    const code = codeFromUnified(e.unified);
    if (overridden.has(code)) continue;
    const names: string[] = [];
    for (const short of e.short_names) {
      // Upstream does not offer skin-tone modifiers as emoji.
      if (short.startsWith("skin-tone")) continue;
      for (const n of [short.replace(/-/g, "_"), short]) {
        if (!claimed.has(n) && !names.includes(n)) names.push(n);
      }
    }
    if (names.length === 0) continue;
    for (const n of names) if (!codeByName.has(n)) codeByName.set(n, code);
    nameByCode.set(code, names[0]);
  }
  for (const [code, names] of overridden) {
    for (const n of names) codeByName.set(n, code);
    nameByCode.set(code, names[0]);
  }
  const namesByCode = new Map<string, string[]>();
  for (const [code, name] of nameByCode) namesByCode.set(code, [name]);
  for (const [name, code] of codeByName) {
    const names = namesByCode.get(code)!;
    if (names[0] !== name) names.push(name);
  }
  return { codeByName, nameByCode, namesByCode };
}

function getTables(): Tables {
  if (!tables) tables = build();
  return tables;
}

/** The Unicode emoji with this name (canonical name or alias), if any. */
export function emojiByName(name: string): { name: string; code: string } | undefined {
  const code = getTables().codeByName.get(name);
  return code === undefined ? undefined : { name, code };
}

/** Upstream's canonical name for an emoji code, if it is a known emoji. */
export function emojiNameByCode(code: string): string | undefined {
  return getTables().nameByCode.get(code);
}

/** Every Unicode emoji accepted, code → names (canonical first): the server's emoji data file. */
export function emojiNamesByCode(): ReadonlyMap<string, readonly string[]> {
  return getTables().namesByCode;
}

export function isValidEmojiCode(code: string): boolean {
  return getTables().nameByCode.has(code);
}

/** Code for a literal emoji string, e.g. "👍" → "1f44d" (FE0F removed). */
export function emojiCodeFromText(text: string): string {
  const parts: string[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfe0f) continue;
    parts.push(cp.toString(16).padStart(4, "0"));
  }
  return parts.join("-");
}
