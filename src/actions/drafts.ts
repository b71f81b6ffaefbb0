/**
 * Drafts (spec 4.7, upstream do_create_drafts / do_edit_draft / do_delete_draft): each
 * change is announced to the owner's clients with a `drafts` event after commit.
 */
import type { AppContext } from "../context.js";
import type { Draft, Realm, User } from "../db/schema.js";
import { withTransaction } from "../db/tx.js";
import { deleteDraftRow, insertDrafts, updateDraftRow } from "../db/queries/drafts.js";
import { sendEventOnCommit } from "../events/send.js";
import { toApiDraft } from "../api-records/draft.js";
import type { ValidDraft } from "../lib/drafts.js";

const columns = (d: ValidDraft) => ({ type: d.type, to_json: JSON.stringify(d.to), topic: d.topic, content: d.content, last_edit_time: d.lastEditTime });

export async function doCreateDrafts(ctx: AppContext, realm: Realm, user: User, drafts: readonly ValidDraft[]): Promise<number[]> {
  return withTransaction(ctx.db, async (tx) => {
    const rows = await insertDrafts(
      tx,
      drafts.map((d) => ({ realm_id: realm.id, user_id: user.id, ...columns(d) })),
    );
    sendEventOnCommit(tx, ctx, realm.id, { type: "drafts", op: "add", drafts: rows.map(toApiDraft) }, [user.id]);
    return rows.map((r) => r.id);
  });
}

export async function doEditDraft(ctx: AppContext, realm: Realm, user: User, draft: Draft, values: ValidDraft): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const row = await updateDraftRow(tx, realm.id, draft.id, columns(values));
    sendEventOnCommit(tx, ctx, realm.id, { type: "drafts", op: "update", draft: toApiDraft(row) }, [user.id]);
  });
}

export async function doDeleteDraft(ctx: AppContext, realm: Realm, user: User, draft: Draft): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await deleteDraftRow(tx, realm.id, draft.id);
    sendEventOnCommit(tx, ctx, realm.id, { type: "drafts", op: "remove", draft_id: draft.id }, [user.id]);
  });
}
