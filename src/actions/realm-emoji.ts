/**
 * Custom emoji changes (upstream check_add_realm_emoji, do_remove_realm_emoji): each sends
 * the full realm_emoji map to every active user.
 *
 * Uploading checks in upstream's order. The image is decoded and resized before the
 * transaction and stored (src/storage: the data folder or the database), then the row is
 * inserted; a failed insert removes the files again. Deactivating an emoji keeps its files:
 * messages, reactions and statuses that use it still show it (the file routes serve
 * deactivated emoji too), as upstream.
 */
import type { AppContext } from "../context.js";
import { ApiError, ResourceNotFoundError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { withTransaction, type Tx } from "../db/tx.js";
import { sendEventOnCommit } from "../events/send.js";
import { activeUserIds } from "../db/queries/users.js";
import { findActiveRealmEmojiByName, insertRealmEmoji, isUniqueViolation, updateRealmEmoji } from "../db/queries/realm-emoji.js";
import { listRealmEmoji } from "../db/queries/initial-state.js";
import { toApiRealmEmoji } from "../api-records/realm-emoji.js";
import { isAdmin, isGuest } from "../lib/roles.js";
import { groupIdsContainingUser } from "../db/queries/user-groups.js";
import { checkValidEmojiName } from "../lib/emoji-validation.js";
import { emojiByName } from "../lib/emoji.js";
import { processEmojiImage } from "../lib/emoji-image.js";
import { emojiStoredName, newEmojiFileName } from "../lib/emoji-files.js";
import { fileStore, type FileStore } from "../storage/file-store.js";
import { holdsSetting } from "../lib/user-groups.js";

/** Deactivates a custom emoji (reactions and statuses using it stay). Administrators, or its author. */
export async function doDeactivateRealmEmoji(ctx: AppContext, realm: Realm, actor: User, name: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const emoji = await findActiveRealmEmojiByName(tx, realm.id, name);
    if (!emoji) throw new ResourceNotFoundError(`Emoji '${name}' does not exist`);
    if (!isAdmin(actor) && emoji.author_id !== actor.id) throw new ApiError("Must be an organization administrator or emoji author");
    await updateRealmEmoji(tx, realm.id, emoji.id, { deactivated: 1 });
    await notifyRealmEmoji(tx, ctx, realm.id);
  });
}

/** The realm_emoji update event: the whole map, to every active user of the realm. */
async function notifyRealmEmoji(tx: Tx, ctx: AppContext, realmId: number): Promise<void> {
  const all = toApiRealmEmoji(realmId, await listRealmEmoji(tx, realmId));
  sendEventOnCommit(tx, ctx, realmId, { type: "realm_emoji", op: "update", realm_emoji: all }, await activeUserIds(tx, realmId));
}


/** Upstream's MAX_EMOJI_FILE_SIZE_MIB default. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

const nameTaken = () => new ApiError("A custom emoji with this name already exists.");

/** `name` is already normalized (normalizeEmojiName); `files` are the request's uploaded files. */
export async function doUploadRealmEmoji(ctx: AppContext, realm: Realm, actor: User, name: string, files: readonly Buffer[]): Promise<void> {
  if (isGuest(actor)) throw new ApiError("Not allowed for guest users");
  checkValidEmojiName(name);
  const containing = await groupIdsContainingUser(ctx.db, realm.id, actor.id);
  if (!holdsSetting(actor, realm.can_add_custom_emoji_group_id, false, containing)) throw new ApiError("Insufficient permission");
  if (await findActiveRealmEmojiByName(ctx.db, realm.id, name)) throw nameTaken();
  if (files.length !== 1) throw new ApiError("You must upload exactly one file.");
  if (emojiByName(name) && !isAdmin(actor)) throw new ApiError("Only administrators can override default emoji.");
  if (files[0].length > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024) {
    throw new ApiError(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`);
  }
  const image = await processEmojiImage(files[0]);
  const fileName = newEmojiFileName(image.ext);
  const store = fileStore(ctx);
  const removeFiles = await storeEmojiFiles(store, realm.id, fileName, image.data, image.still);
  try {
    await withTransaction(ctx.db, async (tx) => {
      try {
        await insertRealmEmoji(tx, { realm_id: realm.id, name, file_name: fileName, author_id: actor.id, is_animated: image.still ? 1 : 0 });
      } catch (err) {
        throw isUniqueViolation(err) ? nameTaken() : err;
      }
      await notifyRealmEmoji(tx, ctx, realm.id);
    });
  } catch (err) {
    await removeFiles();
    throw err;
  }
}

/** Stores the image (and its still); returns a function that removes both again. */
async function storeEmojiFiles(store: FileStore, realmId: number, fileName: string, data: Buffer, still: Buffer | null): Promise<() => Promise<void>> {
  const names = [emojiStoredName(fileName, false)];
  const remove = () => store.delete(realmId, "emoji", names);
  try {
    await store.put(realmId, "emoji", names[0], data);
    if (still) {
      names.push(emojiStoredName(fileName, true));
      await store.put(realmId, "emoji", names[1], still);
    }
  } catch (err) {
    await remove();
    throw err;
  }
  return remove;
}
