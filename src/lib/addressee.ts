/**
 * Who a message goes to: parsing the `to` parameter (channel by id or name; users by
 * ids or emails) and resolving it to a channel or a set of active users, as upstream's
 * addressee and recipient code does, with its messages.
 */
import { ApiError } from "../errors.js";
import type { Channel, Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { channelForSend } from "../db/queries/message-send.js";
import { ensureDmGroupRecipient, ensureRecipient, RECIPIENT_PERSONAL, usersByIds } from "../db/queries/messages.js";
import { apiEmail, usersByApiEmails } from "./users.js";
import { checkListLength } from "./list-limits.js";


export type ChannelIndicator = { id: number } | { name: string };
export type UserIndicators = { ids: number[] } | { emails: string[] };

/** What can begin a JSON text after optional whitespace (objects, arrays, strings, numbers, literals). */
const JSON_START = /^\s*[[{"\-0-9tfn]/;

/**
 * JSON.parse, or `undefined` when `raw` is no JSON text. Plain names and emails are the
 * common case: they are told apart by their first character, without the cost of a
 * thrown SyntaxError (a sizeable part of a send's CPU).
 */
function parseJsonOrUndefined(raw: string): { value: unknown } | undefined {
  if (!JSON_START.test(raw)) return undefined;
  try {
    return { value: JSON.parse(raw) };
  } catch {
    return undefined;
  }
}

/** `to` for a channel message: an id, a name, or a one-element JSON list of either. */
export function parseChannelIndicator(raw: string): ChannelIndicator {
  const parsed = parseJsonOrUndefined(raw);
  if (parsed === undefined) return { name: raw };
  let data = parsed.value;
  if (Array.isArray(data)) {
    if (data.length > 1) throw new ApiError("Cannot send to multiple streams");
    data = data[0];
  }
  if (typeof data === "number" && Number.isSafeInteger(data)) return { id: data };
  if (typeof data === "string") return { name: data };
  throw new ApiError("Invalid data type for stream");
}

/** `to` for a direct message: a JSON list of ids or of emails, or a comma-separated email string. */
export function parseUserIndicators(raw: string): UserIndicators {
  const parsed = parseJsonOrUndefined(raw);
  let data: unknown = parsed === undefined ? raw : parsed.value;
  if (typeof data === "string") data = data.split(",");
  if (!Array.isArray(data)) throw new ApiError("Invalid data type for recipients");
  checkListLength(data, "to");
  if (data.length === 0) return { ids: [] };
  const mixed = () => new ApiError("Recipient lists may contain emails or user IDs, but not both.");
  if (typeof data[0] === "string") {
    if (data.some((e) => typeof e !== "string")) throw mixed();
    return { emails: [...new Set((data as string[]).map((e) => e.trim()))].filter((e) => e !== "") };
  }
  if (typeof data[0] !== "number" || !Number.isSafeInteger(data[0])) throw new ApiError("Invalid data type for recipients");
  if (data.some((e) => typeof e !== "number" || !Number.isSafeInteger(e))) throw mixed();
  return { ids: [...new Set(data as number[])] };
}

/** How a channel is found by its indicator (the send path reads it through a cache). */
export type ChannelLookup = (indicator: ChannelIndicator) => Promise<Readonly<Channel> | undefined> | Readonly<Channel> | undefined;

/** The channel a message is addressed to; STREAM_DOES_NOT_EXIST when it is not in the realm. */
export async function resolveChannel(
  db: Queryable,
  realmId: number,
  indicator: ChannelIndicator,
  lookup: ChannelLookup = (i) => channelForSend(db, realmId, i),
): Promise<Readonly<Channel>> {
  if ("id" in indicator) {
    const channel = await lookup(indicator);
    if (!channel) {
      throw new ApiError(`Stream with ID '${indicator.id}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream_id: indicator.id } });
    }
    return channel;
  }
  const name = indicator.name.trim();
  const channel = name === "" ? undefined : await lookup({ name });
  if (!channel) throw new ApiError(`Stream '${name}' does not exist`, { code: "STREAM_DOES_NOT_EXIST", data: { stream: name } });
  return channel;
}

/** The users named by ids or API emails, in the caller's realm; upstream's messages for unknown ones. */
export async function resolveUsers(db: Queryable, realm: Realm, host: string, indicators: UserIndicators): Promise<User[]> {
  if ("ids" in indicators) {
    if (indicators.ids.length === 0) throw new ApiError("Message must have recipients");
    const found = new Map((await usersByIds(db, realm.id, indicators.ids)).map((u) => [u.id, u]));
    const missing = indicators.ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new ApiError(`Invalid user ID ${missing}`);
    return indicators.ids.map((id) => found.get(id)!);
  }
  if (indicators.emails.length === 0) throw new ApiError("Message must have recipients");
  const byEmail = await usersByApiEmails(db, realm.id, host, indicators.emails);
  const out: User[] = [];
  for (const email of indicators.emails) {
    const user = byEmail.get(email.trim().toLowerCase());
    if (!user) throw new ApiError(`Invalid email '${email}'`);
    if (!out.includes(user)) out.push(user);
  }
  return out;
}

/** Rejects deactivated recipients with upstream's message (brand word replaced). */
export function checkRecipientsActive(recipients: readonly User[], host: string): void {
  for (const u of recipients) {
    if (!u.is_active) throw new ApiError(`'${apiEmail(u, host)}' is no longer using Parley.`);
  }
}

export interface DirectRecipient {
  recipientId: number;
  /** Everyone who gets a per-user row: sender and recipients. */
  participantIds: number[];
}

/**
 * The recipient row of a direct message: a message to oneself or to one other person
 * uses that person's personal recipient; three or more people use their group.
 */
export async function directRecipientFor(db: Queryable, realmId: number, sender: User, recipients: readonly User[]): Promise<DirectRecipient> {
  const ids = new Set(recipients.map((u) => u.id));
  if (ids.size === 2 && ids.has(sender.id)) ids.delete(sender.id);
  if (ids.size === 1) {
    const [target] = [...ids];
    return {
      recipientId: await ensureRecipient(db, realmId, RECIPIENT_PERSONAL, target),
      participantIds: [...new Set([sender.id, target])],
    };
  }
  ids.add(sender.id);
  const participantIds = [...ids].sort((a, b) => a - b);
  return { recipientId: await ensureDmGroupRecipient(db, realmId, participantIds), participantIds };
}

/**
 * A direct conversation as upstream reports it to one participant (drafts, scheduled
 * messages): the other participants by id, or `[self]` for a conversation with oneself.
 */
export function directAudience(userIds: Iterable<number>, selfId: number): number[] {
  const others = [...new Set(userIds)].filter((id) => id !== selfId).sort((a, b) => a - b);
  return others.length > 0 ? others : [selfId];
}
