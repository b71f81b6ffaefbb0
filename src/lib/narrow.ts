/**
 * GET /messages narrows: parsing the `narrow` parameter (objects or legacy pairs) and
 * turning terms into SQL conditions over messages `m` joined with the caller's
 * user_messages `um`. Bad operators raise BAD_NARROW with upstream's wording.
 */
import { sql, type RawBuilder, type SqlBool } from "kysely";
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { ilike, likeContains, lower } from "../db/dialect.js";
import { findChannelById, findChannelByName } from "../db/queries/channels.js";
import {
  findDmGroupRecipient,
  personalRecipientIds,
  publicRecipientIds,
  usersByIds,
  webPublicRecipientIds,
} from "../db/queries/messages.js";
import { isSubscribedTo } from "../db/queries/subscriptions.js";
import { parseUserIndicators, resolveUsers } from "./addressee.js";
import { checkListLength, MAX_NARROW_TERMS, MAX_SEARCH_WORDS } from "./list-limits.js";
import { DEFAULT_HISTORICAL_FLAGS, FLAG_BITS } from "./message-flags.js";
import { isGuest } from "./roles.js";
import { LEGACY_NO_TOPIC, RESOLVED_TOPIC_PREFIX } from "./topics.js";

export type Operand = string | number | number[];
export interface NarrowTerm {
  operator: string;
  operand: Operand;
  negated: boolean;
}

export const badNarrow = (desc: string) => new ApiError(`Invalid narrow operator: ${desc}`, { code: "BAD_NARROW" });

const CHANNEL_OPERATORS = new Set(["channel", "stream"]);
const INT_OPERATORS = new Set(["channel", "stream", "sender", "id", "with"]);
const LIST_OPERATORS = new Set(["dm", "pm-with", "dm-including", "group-pm-with"]);

/** Parses the narrow parameter's JSON; `bad` makes the error for malformed input (the view's generic message). */
export function parseNarrow(raw: string, bad: () => Error): NarrowTerm[] {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw bad();
  }
  if (!Array.isArray(data)) throw bad();
  checkListLength(data, "narrow", MAX_NARROW_TERMS);
  const terms = data.map((elem, i): NarrowTerm => {
    if (Array.isArray(elem)) {
      if (elem.length !== 2 || elem.some((x) => typeof x !== "string")) throw bad();
      return { operator: elem[0] as string, operand: elem[1] as string, negated: false };
    }
    if (typeof elem !== "object" || elem === null) throw bad();
    const { operator, operand, negated } = elem as Record<string, unknown>;
    if (typeof operator !== "string" || (negated !== undefined && typeof negated !== "boolean")) throw bad();
    const ok =
      typeof operand === "string" ||
      (INT_OPERATORS.has(operator) && typeof operand === "number" && Number.isSafeInteger(operand)) ||
      (LIST_OPERATORS.has(operator) && Array.isArray(operand) && operand.every((x) => typeof x === "number" && Number.isSafeInteger(x)));
    if (!ok) throw bad();
    if (Array.isArray(operand)) checkListLength(operand, `narrow[${i}]["operand"]`);
    return { operator, operand: operand as Operand, negated: negated === true };
  });
  checkSearchLength(terms);
  return terms;
}

const searchWords = (operand: Operand) => String(operand).split(/\s+/).filter((w) => w !== "");

/** Each search word is one more condition in the query: bound them all together. */
function checkSearchLength(terms: readonly NarrowTerm[]): void {
  const words = terms.filter((t) => t.operator === "search").reduce((n, t) => n + searchWords(t.operand).length, 0);
  if (words > MAX_SEARCH_WORDS) throw new ApiError(`Search is too long (limit: ${MAX_SEARCH_WORDS} words)`, { code: "BAD_NARROW" });
}

export interface ResolvedNarrow {
  conditions: Array<RawBuilder<SqlBool>>;
  /** Messages without a per-user row may be included (a channel whose history the user may read). */
  includeHistory: boolean;
  /** Names of the channels the narrow named, by id (message objects show them). */
  channelNames: Map<number, string>;
}

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;
const flagsExpr = sql<number>`coalesce(${sql.ref("um.flags")}, ${DEFAULT_HISTORICAL_FLAGS})`;
const hasFlag = (bits: number) => sql<SqlBool>`(${flagsExpr} & ${sql.lit(bits)}) <> 0`;

/** Turns terms into conditions; looks up channels and users in the caller's realm. */
/** Operators spectators may use (upstream is_spectator_compatible). */
const SPECTATOR_OPERATORS = new Set(["channel", "stream", "channels", "streams", "topic", "sender", "has", "search", "near", "id", "with"]);

/** Whether a spectator (no credentials) may run this narrow. */
export function isSpectatorCompatible(terms: readonly NarrowTerm[]): boolean {
  return terms.every((t) => SPECTATOR_OPERATORS.has(t.operator));
}

/**
 * Turns terms into conditions; looks up channels and users in the caller's realm. With
 * `user` null (a spectator) only web-public channels are searched.
 */
export async function resolveNarrow(db: Queryable, user: User | null, realm: Realm, host: string, terms: readonly NarrowTerm[]): Promise<ResolvedNarrow> {
  const conditions: Array<RawBuilder<SqlBool>> = [];
  let includeHistory = false;
  const channelNames = new Map<number, string>();
  if (user === null) {
    const webPublic = await webPublicRecipientIds(db, realm.id);
    conditions.push(webPublic.length > 0 ? sql<SqlBool>`${sql.ref("m.recipient_id")} in (${sql.join(webPublic)})` : FALSE);
  }
  for (const term of terms) {
    const cond = await termCondition(term);
    if (cond !== null) conditions.push(term.negated ? sql<SqlBool>`not (${cond})` : cond);
  }
  if (terms.some((t) => t.operator === "is" && !["resolved", "followed"].includes(String(t.operand)))) includeHistory = false;
  // Spectators have no per-user rows: they read web-public history only (restricted above).
  if (user === null) includeHistory = true;
  return { conditions, includeHistory, channelNames };

  async function termCondition(term: NarrowTerm): Promise<RawBuilder<SqlBool> | null> {
    const { operator, operand } = term;
    if (CHANNEL_OPERATORS.has(operator)) {
      const channel =
        typeof operand === "number"
          ? await findChannelById(db, realm.id, operand)
          : /^\d+$/.test(String(operand)) && !(await findChannelByName(db, realm.id, String(operand)))
            ? await findChannelById(db, realm.id, Number(operand))
            : await findChannelByName(db, realm.id, String(operand));
      if (!channel) throw badNarrow(`unknown channel ${String(operand)}`);
      channelNames.set(channel.id, channel.name);
      if (user === null) {
        if (!channel.is_web_public) throw badNarrow(`unknown web-public channel ${String(operand)}`);
      } else if (!term.negated) {
        // Public channels' history is open to members: only otherwise does the subscription matter.
        includeHistory =
          (!channel.invite_only && !isGuest(user)) || (channel.history_public_to_subscribers === 1 && (await isSubscribedTo(db, realm.id, user.id, channel)));
      }
      return sql<SqlBool>`${sql.ref("m.recipient_id")} = ${channel.recipient_id ?? -1}`;
    }
    switch (operator) {
      case "channels":
      case "streams": {
        if (operand === "web-public") {
          const ids = await webPublicRecipientIds(db, realm.id);
          return ids.length > 0 ? sql<SqlBool>`${sql.ref("m.recipient_id")} in (${sql.join(ids)})` : FALSE;
        }
        if (operand === "public" && user !== null) {
          if (!term.negated && !isGuest(user)) includeHistory = true;
          const ids = await publicRecipientIds(db, realm.id);
          return ids.length > 0 ? sql<SqlBool>`${sql.ref("m.recipient_id")} in (${sql.join(ids)})` : FALSE;
        }
        throw badNarrow(`unknown channels operand ${String(operand)}`);
      }
      case "topic": {
        let topic = String(operand);
        if (topic === realm.empty_topic_display_name || topic === LEGACY_NO_TOPIC) topic = "";
        return sql<SqlBool>`${sql.ref("m.channel_id")} is not null and ${lower("m.topic")} = ${topic.toLowerCase()}`;
      }
      case "sender": {
        const target = await resolveOneUser(operand);
        if (!target) throw badNarrow(`unknown user ${String(operand)}`);
        return sql<SqlBool>`${sql.ref("m.sender_id")} = ${target.id}`;
      }
      case "dm":
      case "pm-with":
        return dmCondition(operand, user!);
      case "search": {
        const words = searchWords(operand);
        if (words.length === 0) return TRUE;
        return sql.join(
          words.map((w) => sql<SqlBool>`(${ilike(db, "m.content", likeContains(w))} or ${ilike(db, "m.topic", likeContains(w))})`),
          sql` and `,
        ) as RawBuilder<SqlBool>;
      }
      case "is":
        return isCondition(String(operand));
      case "id": {
        if (typeof operand !== "number" && !/^\d+$/.test(String(operand))) throw badNarrow("Invalid message ID");
        return sql<SqlBool>`${sql.ref("m.id")} = ${Number(operand)}`;
      }
      case "has":
        switch (operand) {
          case "link":
            return sql<SqlBool>`${sql.ref("m.has_link")} = 1`;
          case "image":
            return sql<SqlBool>`${sql.ref("m.has_image")} = 1`;
          case "attachment":
            return sql<SqlBool>`${sql.ref("m.has_attachment")} = 1`;
          default:
            throw badNarrow(`unknown 'has' operand ${String(operand)}`);
        }
      case "near":
        return null;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
  }

  async function resolveOneUser(operand: Operand): Promise<User | undefined> {
    if (typeof operand === "number") return (await usersByIds(db, realm.id, [operand]))[0];
    try {
      return (await resolveUsers(db, realm, host, { emails: [String(operand)] }))[0];
    } catch {
      return undefined;
    }
  }

  async function dmCondition(operand: Operand, user: User): Promise<RawBuilder<SqlBool>> {
    let users: User[];
    try {
      const indicators = Array.isArray(operand) ? { ids: operand } : parseUserIndicators(String(operand));
      users = await resolveUsers(db, realm, host, indicators);
    } catch {
      throw badNarrow(`unknown user in ${Array.isArray(operand) ? JSON.stringify(operand) : String(operand)}`);
    }
    const ids = new Set(users.map((u) => u.id));
    const isPrivate = sql<SqlBool>`${sql.ref("m.channel_id")} is null`;
    if (ids.size === 2 && ids.has(user.id)) ids.delete(user.id);
    if (ids.size > 1) {
      ids.add(user.id);
      const recipientId = await findDmGroupRecipient(db, realm.id, [...ids]);
      return recipientId === null ? FALSE : sql<SqlBool>`${sql.ref("m.recipient_id")} = ${recipientId}`;
    }
    const [other] = [...ids];
    const personal = await personalRecipientIds(db, realm.id, [user.id, other]);
    const mine = personal.get(user.id) ?? -1;
    const theirs = personal.get(other) ?? -1;
    if (other === user.id) {
      return sql<SqlBool>`${isPrivate} and ${sql.ref("m.sender_id")} = ${user.id} and ${sql.ref("m.recipient_id")} = ${mine}`;
    }
    return sql<SqlBool>`${isPrivate} and ((${sql.ref("m.sender_id")} = ${other} and ${sql.ref("m.recipient_id")} = ${mine}) or (${sql.ref("m.sender_id")} = ${user.id} and ${sql.ref("m.recipient_id")} = ${theirs}))`;
  }

  function isCondition(operand: string): RawBuilder<SqlBool> {
    switch (operand) {
      case "starred":
        return hasFlag(FLAG_BITS.starred);
      case "mentioned":
        return hasFlag(FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned);
      case "unread":
        return sql<SqlBool>`not (${hasFlag(FLAG_BITS.read)})`;
      case "alerted":
        return hasFlag(FLAG_BITS.has_alert_word);
      case "dm":
      case "private":
        return sql<SqlBool>`${sql.ref("m.channel_id")} is null`;
      case "resolved":
        return sql<SqlBool>`${sql.ref("m.channel_id")} is not null and ${sql.ref("m.topic")} like ${RESOLVED_TOPIC_PREFIX + "%"}`;
      default:
        throw badNarrow(`unknown 'is' operand ${operand}`);
    }
  }
}
