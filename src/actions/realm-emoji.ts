/** Custom emoji changes (upstream do_remove_realm_emoji): the full realm_emoji map to every active user. */
import type { AppContext } from "../context.js";
import { ApiError, ResourceNotFoundError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeUserIds } from "../db/queries/users.js";
import { findActiveRealmEmojiByName, updateRealmEmoji } from "../db/queries/realm-emoji.js";
import { listRealmEmoji } from "../db/queries/initial-state.js";
import { toApiRealmEmoji } from "../api-records/realm-emoji.js";
import { isAdmin } from "../lib/roles.js";

/** Deactivates a custom emoji (reactions and statuses using it stay). Administrators, or its author. */
export async function doDeactivateRealmEmoji(ctx: AppContext, realm: Realm, actor: User, name: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const emoji = await findActiveRealmEmojiByName(tx, realm.id, name);
    if (!emoji) throw new ResourceNotFoundError(`Emoji '${name}' does not exist`);
    if (!isAdmin(actor) && emoji.author_id !== actor.id) throw new ApiError("Must be an organization administrator or emoji author");
    await updateRealmEmoji(tx, realm.id, emoji.id, { deactivated: 1 });
    const all = toApiRealmEmoji(realm.id, await listRealmEmoji(tx, realm.id));
    sendEventOnCommit(tx, ctx, realm.id, { type: "realm_emoji", op: "update", realm_emoji: all }, await activeUserIds(tx, realm.id));
  });
}
