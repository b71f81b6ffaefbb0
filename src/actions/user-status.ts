/**
 * User status (upstream update_user_status_backend / do_update_user_status): a text of at
 * most 60 characters and an emoji, each changed only when passed; "" clears. The emoji is
 * checked by the same rules as reactions (lib/emoji-validation.ts). `user_status` events
 * go to every active user who can access the user.
 */
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeUserIds } from "../db/queries/users.js";
import { upsertUserStatus, type UserStatusChange } from "../db/queries/user-status.js";
import { checkEmojiRequest, emojiDataByName } from "../lib/emoji-validation.js";
import { usersWhoCanAccessUser } from "../lib/presence.js";

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface UserStatusInput {
  /** Already stripped of surrounding whitespace and length-checked. */
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

export async function doUpdateUserStatus(ctx: AppContext, realm: Realm, target: User, input: UserStatusInput): Promise<void> {
  if (input.statusText === undefined && input.emojiName === undefined) throw new ApiError("Client did not pass any new values.");
  const change: UserStatusChange = {};
  if (input.statusText !== undefined) change.status_text = input.statusText;
  const emojiName = input.emojiName;
  let { emojiCode, reactionType } = input;
  if (emojiName === "") {
    emojiCode = "";
    reactionType = "unicode_emoji";
  } else if (emojiName !== undefined) {
    if (emojiCode === undefined || reactionType === undefined) {
      const data = await emojiDataByName(ctx.db, realm.id, emojiName);
      emojiCode ??= data.emojiCode;
      reactionType ??= data.reactionType;
    }
    await checkEmojiRequest(ctx.db, realm.id, emojiName, emojiCode, reactionType);
  } else if (emojiCode !== undefined || reactionType !== undefined) {
    throw new ApiError("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
  }
  if (emojiName !== undefined) Object.assign(change, { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType });

  await withTransaction(ctx.db, async (tx) => {
    await upsertUserStatus(tx, realm.id, target.id, change, nowSeconds(ctx));
    const recipients = await usersWhoCanAccessUser(tx, realm, target.id, await activeUserIds(tx, realm.id));
    sendEventOnCommit(tx, ctx, realm.id, { type: "user_status", user_id: target.id, ...change }, recipients);
  });
}
