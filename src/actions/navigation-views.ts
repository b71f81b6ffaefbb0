/**
 * Navigation views: each change sends `navigation_view` (op add / update / remove) to
 * the user only. Checks run inside the transaction, in upstream's order.
 */
import type { AppContext } from "../context.js";
import type { User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import {
  deleteNavigationView,
  findNavigationView,
  insertNavigationView,
  navigationViewNameTaken,
  updateNavigationView,
} from "../db/queries/navigation-views.js";
import { sendEventOnCommit } from "../events/send.js";
import { ApiError } from "../errors.js";
import { BUILT_IN_NO_NAME, BUILT_IN_VIEW_FRAGMENTS, CUSTOM_NEEDS_NAME, toApiNavigationView, VIEW_EXISTS, viewNotFound } from "../lib/navigation-views.js";

export async function doAddNavigationView(ctx: AppContext, user: User, fragment: string, isPinned: boolean, name: string | null): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
      if (name !== null) throw new ApiError(BUILT_IN_NO_NAME);
    } else if (name === null) {
      throw new ApiError(CUSTOM_NEEDS_NAME);
    }
    if (await findNavigationView(tx, user.realm_id, user.id, fragment)) throw new ApiError(VIEW_EXISTS);
    if (name !== null && (await navigationViewNameTaken(tx, user.realm_id, user.id, name))) throw new ApiError(VIEW_EXISTS);
    const row = await insertNavigationView(tx, user.realm_id, user.id, fragment, isPinned, name);
    sendEventOnCommit(tx, ctx, user.realm_id, { type: "navigation_view", op: "add", navigation_view: toApiNavigationView(row) }, [user.id]);
  });
}

/** Built-in names are refused before existence; a name used by any view (this one too) is taken. */
export async function doUpdateNavigationView(ctx: AppContext, user: User, fragment: string, isPinned: boolean | undefined, name: string | undefined): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment) && name !== undefined) throw new ApiError(BUILT_IN_NO_NAME);
    if (name !== undefined && (await navigationViewNameTaken(tx, user.realm_id, user.id, name))) throw new ApiError(VIEW_EXISTS);
    const view = await findNavigationView(tx, user.realm_id, user.id, fragment);
    if (!view) throw viewNotFound();
    const data: { name?: string; is_pinned?: boolean } = {};
    if (name !== undefined) data.name = name;
    if (isPinned !== undefined) data.is_pinned = isPinned;
    await updateNavigationView(tx, view.id, { ...(name !== undefined ? { name } : {}), ...(isPinned !== undefined ? { is_pinned: isPinned ? 1 : 0 } : {}) });
    sendEventOnCommit(tx, ctx, user.realm_id, { type: "navigation_view", op: "update", fragment, data }, [user.id]);
  });
}

export async function doRemoveNavigationView(ctx: AppContext, user: User, fragment: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const view = await findNavigationView(tx, user.realm_id, user.id, fragment);
    if (!view) throw viewNotFound();
    await deleteNavigationView(tx, view.id);
    sendEventOnCommit(tx, ctx, user.realm_id, { type: "navigation_view", op: "remove", fragment }, [user.id]);
  });
}
