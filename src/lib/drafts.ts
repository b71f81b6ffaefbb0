/**
 * Draft rules (spec 2.2, upstream DraftData + further_validated_draft_dict): the shape of
 * a draft object, then its content, timestamp and addressee, in upstream's order.
 */
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { usersByIds } from "../db/queries/messages.js";
import { accessChannelById } from "./channels.js";
import { checkRecipientsActive, directAudience } from "./addressee.js";
import { normalizeContent } from "./message-content.js";
import { truncateTopic } from "./topics.js";

export const DRAFTS_DISABLED = "User has disabled synchronizing drafts.";

export interface DraftInput {
  type: "" | "stream" | "private";
  to: number[];
  topic: string;
  content: string;
  timestamp: number | null | undefined;
}

/** What a draft row stores once validated. */
export interface ValidDraft {
  type: string;
  to: number[];
  topic: string;
  content: string;
  lastEditTime: number;
}

/** Checks a parsed draft against the realm: content, timestamp, then the addressee. */
export async function validateDraft(db: Queryable, realm: Realm, user: User, host: string, draft: DraftInput, nowSeconds: number): Promise<ValidDraft> {
  const content = normalizeContent(draft.content, realm.max_message_length);
  const timestamp = draft.timestamp ?? nowSeconds;
  if (timestamp < 0) throw new ApiError("Timestamp must not be negative.");
  const lastEditTime = Math.floor(timestamp);
  if (draft.type === "stream") {
    const topic = truncateTopic(draft.topic, realm.max_topic_length);
    if (topic.includes("\x00")) throw new ApiError("Topic must not contain null bytes");
    if (draft.to.length !== 1) throw new ApiError("Must specify exactly 1 channel ID for channel messages");
    const { channel } = await accessChannelById(db, user, draft.to[0]!);
    return { type: "stream", to: [channel.id], topic, content, lastEditTime };
  }
  if (draft.type === "private" && draft.to.length > 0) {
    const ids = [...new Set(draft.to)];
    const found = new Map((await usersByIds(db, realm.id, ids)).map((u) => [u.id, u]));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new ApiError(`Invalid user ID ${missing}`);
    checkRecipientsActive([...found.values()], host);
    return { type: "private", to: directAudience(ids, user.id), topic: "", content, lastEditTime };
  }
  // Unaddressed (and direct drafts without recipients) are stored with no addressee.
  return { type: "", to: [], topic: "", content, lastEditTime };
}
