/**
 * Emoji reactions (upstream check_add_reaction / do_remove_reaction): add, vote for an
 * existing reaction, remove; `reaction` events to everyone who can read the message.
 */
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { Channel, Message, Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { deleteReaction, ensureUserMessage, findReactionOnMessage, insertReaction } from "../db/queries/reactions.js";
import { accessMessage } from "../lib/message-access.js";
import { messageEventAudience } from "../lib/message-audience.js";
import { checkEmojiRequest, emojiDataByName } from "../lib/emoji-validation.js";
import { DEFAULT_HISTORICAL_FLAGS } from "../lib/message-flags.js";
import { realmHost } from "../lib/realm-host.js";
import { apiEmail } from "../lib/users.js";

export const reactionAlreadyExists = () => new ApiError("Reaction already exists.", { code: "REACTION_ALREADY_EXISTS" });
export const reactionDoesNotExist = () => new ApiError("Reaction doesn't exist.", { code: "REACTION_DOES_NOT_EXIST" });

export interface ReactionInput {
  emojiName: string;
  emojiCode?: string;
  reactionType?: string;
}

/** Adds the caller's reaction (POST /messages/{id}/reactions), in upstream's check order. */
export async function doAddReaction(ctx: AppContext, realm: Realm, user: User, messageId: number, input: ReactionInput): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const { message, channel, flags } = await accessMessage(tx, user, messageId, { modifying: true });
    let { emojiName, emojiCode, reactionType } = input;
    if (emojiCode === undefined || reactionType === undefined) {
      const data = await emojiDataByName(tx, realm.id, emojiName);
      emojiCode ??= data.emojiCode;
      reactionType ??= data.reactionType;
    }
    const key = { realmId: realm.id, messageId: message.id, emojiCode, reactionType };
    if (await findReactionOnMessage(tx, key, user.id)) throw reactionAlreadyExists();
    // Someone's reaction with the same emoji: this one is a vote for it and takes its
    // name, unchecked (it may be a custom emoji deactivated since).
    const existing = await findReactionOnMessage(tx, key);
    if (existing) emojiName = existing.emoji_name;
    else await checkEmojiRequest(tx, realm.id, emojiName, emojiCode, reactionType);
    if (flags === null) {
      await ensureUserMessage(tx, { realm_id: realm.id, user_id: user.id, message_id: message.id, flags: DEFAULT_HISTORICAL_FLAGS });
    }
    const row = { realm_id: realm.id, message_id: message.id, user_id: user.id, emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType };
    if (!(await insertReaction(tx, row))) throw reactionAlreadyExists();
    await publishReaction(tx, ctx, realm, user, message, channel, "add", row);
  });
}

export interface RemoveReactionInput {
  emojiName?: string;
  emojiCode?: string;
  reactionType: string;
}

/**
 * Removes the caller's reaction. The (type, code) pair is not validated: the row proves
 * it was valid when added (a custom emoji may have been deactivated since).
 */
export async function doRemoveReaction(ctx: AppContext, realm: Realm, user: User, messageId: number, input: RemoveReactionInput): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const { message, channel } = await accessMessage(tx, user, messageId, { modifying: true });
    let emojiCode = input.emojiCode;
    if (emojiCode === undefined) {
      if (input.emojiName === undefined) throw new ApiError("At least one of the following arguments must be present: emoji_name, emoji_code");
      emojiCode = (await emojiDataByName(tx, realm.id, input.emojiName)).emojiCode;
    }
    const reaction = await findReactionOnMessage(tx, { realmId: realm.id, messageId: message.id, emojiCode, reactionType: input.reactionType }, user.id);
    if (!reaction || !(await deleteReaction(tx, reaction.id))) throw reactionDoesNotExist();
    await publishReaction(tx, ctx, realm, user, message, channel, "remove", reaction);
  });
}

async function publishReaction(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  user: User,
  message: Message,
  channel: Channel | null,
  op: "add" | "remove",
  reaction: { emoji_name: string; emoji_code: string; reaction_type: string },
): Promise<void> {
  const event = {
    type: "reaction",
    op,
    user_id: user.id,
    user: { user_id: user.id, email: apiEmail(user, realmHost(realm.string_id, ctx.config.externalHost)), full_name: user.full_name },
    message_id: message.id,
    emoji_name: reaction.emoji_name,
    emoji_code: reaction.emoji_code,
    reaction_type: reaction.reaction_type,
  };
  sendEventOnCommit(tx, ctx, realm.id, event, await messageEventAudience(tx, realm.id, message, channel));
}
