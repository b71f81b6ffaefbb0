/**
 * Which emoji a reaction or a user status may name (upstream get_emoji_data and
 * check_emoji_request), shared by reactions and user status.
 *
 * Three namespaces (spec 2.7): `unicode_emoji` (code: dash-separated hex codepoints,
 * from emoji-datasource through lib/emoji.ts), `realm_emoji` (code: the custom emoji's
 * id), `chat_extra_emoji` (code: the emoji's name; the one extra emoji is the product's
 * own logo, named EXTRA_EMOJI_NAME).
 */
import { ApiError } from "../errors.js";
import type { Queryable } from "../db/tx.js";
import { findActiveRealmEmojiByName, findRealmEmojiById } from "../db/queries/realm-emoji.js";
import { emojiByName, isValidEmojiCode } from "./emoji.js";

export const REACTION_TYPES = ["unicode_emoji", "realm_emoji", "chat_extra_emoji"] as const;
export type ReactionType = (typeof REACTION_TYPES)[number];

/** The extra emoji's name and code (upstream names it after its own product; Parley after itself). */
export const EXTRA_EMOJI_NAME = "parley";

export interface EmojiData {
  emojiCode: string;
  reactionType: ReactionType;
}

/**
 * The emoji a bare name means: an active custom emoji first, then the extra emoji,
 * then a Unicode name or alias. `Emoji '<name>' does not exist` otherwise.
 */
export async function emojiDataByName(db: Queryable, realmId: number, name: string): Promise<EmojiData> {
  const custom = await findActiveRealmEmojiByName(db, realmId, name);
  if (custom) return { emojiCode: String(custom.id), reactionType: "realm_emoji" };
  if (name === EXTRA_EMOJI_NAME) return { emojiCode: name, reactionType: "chat_extra_emoji" };
  const unicode = emojiByName(name);
  if (unicode) return { emojiCode: unicode.code, reactionType: "unicode_emoji" };
  throw new ApiError(`Emoji '${name}' does not exist`);
}

/** Checks that (name, code, type) names one emoji usable for a new reaction or status, in upstream's order. */
export async function checkEmojiRequest(db: Queryable, realmId: number, name: string, code: string, type: string): Promise<void> {
  if (type === "realm_emoji") {
    const id = /^\d+$/.test(code) ? Number(code) : NaN;
    const custom = Number.isSafeInteger(id) ? await findRealmEmojiById(db, realmId, id) : undefined;
    if (!custom) throw new ApiError("Invalid custom emoji.");
    if (custom.name !== name) throw new ApiError("Invalid custom emoji name.");
    if (custom.deactivated) throw new ApiError("This custom emoji has been deactivated.");
  } else if (type === "chat_extra_emoji") {
    if (code !== EXTRA_EMOJI_NAME) throw new ApiError("Invalid emoji code.");
    if (name !== code) throw new ApiError("Invalid emoji name.");
  } else if (type === "unicode_emoji") {
    if (!isValidEmojiCode(code)) throw new ApiError("Invalid emoji code.");
    if (emojiByName(name)?.code !== code) throw new ApiError("Invalid emoji name.");
  } else {
    throw new ApiError("Invalid emoji type.");
  }
}

/**
 * Parley's own bound on custom emoji names (upstream stores any length); long enough for
 * every built-in name, short enough to stay readable in a picker.
 */
export const MAX_EMOJI_NAME_LENGTH = 60;

/**
 * Upstream check_valid_emoji_name, on a name already normalized (trimmed, spaces made
 * underscores): lowercase letters, digits, `-` and `_`, ending in a letter or digit.
 */
export function checkValidEmojiName(name: string): void {
  if (name === "") throw new ApiError("Emoji name is missing");
  if (!/^[0-9a-z_-]+$/.test(name)) {
    throw new ApiError("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
  }
  if (/[_-]$/.test(name)) throw new ApiError("Emoji names must end with either a letter or digit.");
  if (name.length > MAX_EMOJI_NAME_LENGTH) throw new ApiError(`Emoji name is too long (limit: ${MAX_EMOJI_NAME_LENGTH} characters)`);
}

/** Upstream's upload form of a name: surrounding whitespace dropped, spaces read as underscores. */
export function normalizeEmojiName(raw: string): string {
  return raw.trim().replaceAll(" ", "_");
}
