/**
 * Linkifier changes (add, update, remove, reorder). Each sends `realm_linkifiers` with
 * the realm's full, ordered list to every active user of the realm (upstream).
 */
import type { AppContext } from "../context.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { Linkifier, Realm } from "../db/schema.js";
import { activeRealmUsers } from "../db/queries/users.js";
import {
  deleteLinkifier,
  findLinkifier,
  findLinkifierByPattern,
  insertLinkifier,
  listLinkifiers,
  setLinkifierOrder,
  updateLinkifier,
} from "../db/queries/linkifiers.js";
import { ApiError } from "../errors.js";
import { validateLinkifier } from "../lib/markdown/linkifiers.js";
import { sendEventOnCommit } from "../events/send.js";

export const LINKIFIER_NOT_FOUND = "Linkifier not found.";

export function toApiLinkifier(l: Linkifier): { pattern: string; url_template: string; id: number } {
  return { pattern: l.pattern, url_template: l.url_template, id: l.id };
}

/**
 * Upstream's model validation (field errors, then pattern/template checks, then the
 * per-realm unique pattern): `msg` is the first message, `errors` maps field → messages.
 */
async function validate(tx: Tx, realmId: number, pattern: string, urlTemplate: string, selfId: number | null): Promise<void> {
  const problems = validateLinkifier(pattern, urlTemplate);
  if (problems.length === 0) {
    const dup = await findLinkifierByPattern(tx, realmId, pattern);
    if (dup && dup.id !== selfId) problems.push({ field: "__all__", message: "Realm filter with this Realm and Pattern already exists." });
  }
  if (problems.length === 0) return;
  const errors: Record<string, string[]> = {};
  for (const p of problems) (errors[p.field] ??= []).push(p.message);
  throw new ApiError(problems[0]!.message, { data: { errors } });
}

async function notify(tx: Tx, ctx: AppContext, realm: Realm): Promise<void> {
  const list = (await listLinkifiers(tx, realm.id)).map(toApiLinkifier);
  const users = await activeRealmUsers(tx, realm.id);
  // Recipients: every active user of the realm (linkifiers apply to everyone's rendering).
  sendEventOnCommit(tx, ctx, realm.id, { type: "realm_linkifiers", realm_linkifiers: list }, users.map((u) => u.id));
}

export async function doAddLinkifier(ctx: AppContext, realm: Realm, pattern: string, urlTemplate: string): Promise<number> {
  return withTransaction(ctx.db, async (tx) => {
    const p = pattern.trim();
    const t = urlTemplate.trim();
    await validate(tx, realm.id, p, t, null);
    const existing = await listLinkifiers(tx, realm.id);
    const order = existing.length === 0 ? 0 : Math.max(...existing.map((l) => l.order)) + 1;
    const id = await insertLinkifier(tx, realm.id, p, t, order);
    await notify(tx, ctx, realm);
    return id;
  });
}

export async function doUpdateLinkifier(ctx: AppContext, realm: Realm, id: number, pattern: string, urlTemplate: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    if (!(await findLinkifier(tx, realm.id, id))) throw new ApiError(LINKIFIER_NOT_FOUND);
    const p = pattern.trim();
    const t = urlTemplate.trim();
    await validate(tx, realm.id, p, t, id);
    await updateLinkifier(tx, realm.id, id, p, t);
    await notify(tx, ctx, realm);
  });
}

export async function doRemoveLinkifier(ctx: AppContext, realm: Realm, id: number): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    if (!(await findLinkifier(tx, realm.id, id))) throw new ApiError(LINKIFIER_NOT_FOUND);
    await deleteLinkifier(tx, realm.id, id);
    await notify(tx, ctx, realm);
  });
}

export async function doReorderLinkifiers(ctx: AppContext, realm: Realm, orderedIds: readonly number[]): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const wanted = new Set(orderedIds);
    if (wanted.size < orderedIds.length) throw new ApiError("The ordered list must not contain duplicated linkifiers");
    const existing = await listLinkifiers(tx, realm.id);
    const have = new Set(existing.map((l) => l.id));
    if (have.size !== wanted.size || [...have].some((id) => !wanted.has(id))) {
      throw new ApiError("The ordered list must enumerate all existing linkifiers exactly once");
    }
    if (existing.length === 0) return;
    for (const [order, id] of orderedIds.entries()) await setLinkifierOrder(tx, realm.id, id, order);
    await notify(tx, ctx, realm);
  });
}
