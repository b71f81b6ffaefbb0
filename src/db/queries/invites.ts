/** Invitations (email invitations and reusable links) and the log of invitation emails sent. */
import type { Insertable } from "kysely";
import type { Invite, InviteTable } from "../schema.js";
import type { Queryable } from "../tx.js";
import { lower } from "../dialect.js";

export const InviteStatus = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

export async function insertInvites(db: Queryable, rows: Insertable<InviteTable>[]): Promise<Invite[]> {
  if (rows.length === 0) return [];
  return db.insertInto("invites").values(rows).returningAll().execute();
}

export async function findInvite(db: Queryable, realmId: number, id: number, multiuse: boolean): Promise<Invite | undefined> {
  return db
    .selectFrom("invites")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("id", "=", id)
    .where("is_multiuse", "=", multiuse ? 1 : 0)
    .executeTakeFirst();
}

/** The invitation a link names, in any organization (the caller checks the realm). */
export async function findInviteByKey(db: Queryable, key: string): Promise<Invite | undefined> {
  return db.selectFrom("invites").selectAll().where("link_key", "=", key).executeTakeFirst();
}

/**
 * Pending, unexpired invitations: the realm's (administrators) or one referrer's. Email
 * invitations and links alike; a link stays pending after use, an email invitation does not.
 */
export async function listPendingInvites(db: Queryable, realmId: number, now: number, referrerId: number | null): Promise<Invite[]> {
  let q = db
    .selectFrom("invites")
    .selectAll()
    .where("realm_id", "=", realmId)
    .where("status", "=", 0)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">=", now)]));
  if (referrerId !== null) q = q.where("referrer_id", "=", referrerId);
  // Email invitations first, then links, as upstream lists them.
  return q.orderBy("is_multiuse").orderBy("id").execute();
}

export async function setInviteStatus(db: Queryable, realmId: number, id: number, status: number): Promise<void> {
  await db.updateTable("invites").set({ status }).where("realm_id", "=", realmId).where("id", "=", id).execute();
}

/** Pending email invitations of this address (compared lower-cased), which an account created for it uses up. */
export async function markEmailInvitesUsed(db: Queryable, realmId: number, email: string): Promise<void> {
  await db
    .updateTable("invites")
    .set({ status: InviteStatus.USED })
    .where("realm_id", "=", realmId)
    .where("is_multiuse", "=", 0)
    .where("status", "=", InviteStatus.PENDING)
    .where(lower("email"), "=", email.toLowerCase())
    .execute();
}

export async function countInviteSendsSince(db: Queryable, realmId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom("invite_sends")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("realm_id", "=", realmId)
    .where("sent_at", ">", since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function recordInviteSends(db: Queryable, realmId: number, inviteIds: readonly number[], at: number): Promise<void> {
  if (inviteIds.length === 0) return;
  await db.insertInto("invite_sends").values(inviteIds.map((invite_id) => ({ realm_id: realmId, invite_id, sent_at: at }))).execute();
}

/** Existing accounts (active or not) for these addresses, compared lower-cased. */
export async function usersWithEmails(db: Queryable, realmId: number, emails: readonly string[]): Promise<Array<{ delivery_email: string; is_active: number }>> {
  if (emails.length === 0) return [];
  return db
    .selectFrom("users")
    .select(["delivery_email", "is_active"])
    .where("realm_id", "=", realmId)
    .where("delivery_email", "in", emails.map((e) => e.toLowerCase()))
    .execute();
}

/** Active administrators (and owners) of the realm: the audience of invites_changed with the referrer. */
export async function activeAdminIds(db: Queryable, realmId: number, adminRole: number): Promise<number[]> {
  const rows = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("role", "<=", adminRole)
    .execute();
  return rows.map((r) => r.id);
}
