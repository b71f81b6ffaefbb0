/**
 * The bench organization, seeded in bulk through the database layer (never through HTTP):
 * an owner and members with presence rows, a 50-member channel, a channel everyone is
 * subscribed to (the fan-out rows' channel), and 100 more channels of which the register
 * rows' callers (REGISTER_USERS members outside the 50-member channel, so no other row's
 * sends change what they read) follow CHANNELS_PER_REGISTERING_USER.
 * `growRealm` adds users while the server is stopped, so rows run at 1k, 10k, 100k users.
 */
import type { Kysely } from "kysely";
import type { AppContext } from "../src/context.js";
import type { DB } from "../src/db/schema.js";
import { doCreateRealm } from "../src/actions/realms.js";
import { doCreateChannel } from "../src/actions/subscriptions.js";
import { getRealm } from "../src/db/queries/realms.js";
import { systemGroupIds } from "../src/db/queries/user-groups.js";
import { generateApiKey } from "../src/lib/secrets.js";
import { Role } from "../src/lib/roles.js";
import { directSystemGroupsForRole } from "../src/lib/system-groups.js";
import type { BenchUser } from "./http-client.js";

export const SEND_CHANNEL = "bench";
export const EVERYONE_CHANNEL = "everyone";
export const EXTRA_CHANNELS = 100;
export const REGISTER_USERS = 500;
export const CHANNELS_PER_REGISTERING_USER = 20;
/** Members of the 50-member send channel besides the owner: the first members. */
const SEND_CHANNEL_MEMBERS = 49;
const BATCH = 1000;

/** The register rows' callers: members the send rows never write to. */
export const registerCallers = (realm: BenchRealm): BenchUser[] => realm.members.slice(SEND_CHANNEL_MEMBERS, SEND_CHANNEL_MEMBERS + REGISTER_USERS);

export interface BenchRealm {
  realmId: number;
  owner: BenchUser;
  /** Every human but the owner, in id order. */
  members: BenchUser[];
  /** Channel ids by name. */
  channels: Map<string, number>;
  everyoneRecipientId: number;
}

export const userCount = (realm: BenchRealm): number => realm.members.length + 1;

/** A realm of `users` humans (owner included) with the channels described above. */
export async function createBenchRealm(ctx: AppContext, users: number): Promise<BenchRealm> {
  const created = await doCreateRealm(ctx, { name: "Bench Organization", subdomain: "", ownerEmail: "owner@bench.example.com", ownerName: "Bench Owner", ownerPassword: null });
  const owner = created.owner;
  const realm: BenchRealm = {
    realmId: created.realm.id,
    owner: { id: owner.id, email: owner.delivery_email, apiKey: owner.api_key },
    members: [],
    channels: new Map(),
    everyoneRecipientId: 0,
  };
  await addMembers(ctx.db, realm, users - 1);
  const realmRow = await getRealm(ctx.db, realm.realmId);
  const first49 = await ctx.db.selectFrom("users").selectAll().where("id", "in", realm.members.slice(0, SEND_CHANNEL_MEMBERS).map((m) => m.id)).execute();
  const channel = (name: string, subscribers = [owner]) =>
    doCreateChannel(ctx, realmRow, owner, { name, description: `The ${name} channel`, inviteOnly: false, isWebPublic: false, subscribers });
  realm.channels.set(SEND_CHANNEL, (await channel(SEND_CHANNEL, [owner, ...first49])).id);
  const everyone = await channel(EVERYONE_CHANNEL);
  realm.channels.set(EVERYONE_CHANNEL, everyone.id);
  realm.everyoneRecipientId = everyone.recipient_id!;
  await subscribe(ctx.db, realm.realmId, realm.members.map((m) => m.id), everyone.recipient_id!);
  for (let i = 0; i < EXTRA_CHANNELS; i++) {
    const c = await channel(`channel-${i}`);
    realm.channels.set(c.name, c.id);
    if (i < CHANNELS_PER_REGISTERING_USER) await subscribe(ctx.db, realm.realmId, registerCallers(realm).map((m) => m.id), c.recipient_id!);
  }
  await seedPresence(ctx.db, realm, [realm.owner, ...realm.members]);
  return realm;
}

/** Adds members until the realm has `users` humans; they join the everyone channel. */
export async function growRealm(db: Kysely<DB>, realm: BenchRealm, users: number): Promise<void> {
  const before = realm.members.length;
  await addMembers(db, realm, users - 1 - before);
  const added = realm.members.slice(before);
  await subscribe(db, realm.realmId, added.map((m) => m.id), realm.everyoneRecipientId);
  await seedPresence(db, realm, added);
}

async function addMembers(db: Kysely<DB>, realm: BenchRealm, count: number): Promise<void> {
  const groups = await systemGroupIds(db, realm.realmId);
  const memberGroups = directSystemGroupsForRole(Role.MEMBER).map((g) => groups.get(g)!);
  const now = Math.floor(Date.now() / 1000);
  const first = realm.members.length;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => ({
      realm_id: realm.realmId,
      delivery_email: `user${first + start + i}@bench.example.com`,
      full_name: `Bench User ${first + start + i}`,
      role: Role.MEMBER,
      api_key: generateApiKey(),
      date_joined: now,
    }));
    const rows = await db.insertInto("users").values(batch).returning(["id", "delivery_email", "api_key"]).execute();
    await db
      .insertInto("user_group_members")
      .values(rows.flatMap((r) => memberGroups.map((group_id) => ({ realm_id: realm.realmId, group_id, user_id: r.id }))))
      .execute();
    realm.members.push(...rows.map((r) => ({ id: r.id, email: r.delivery_email, apiKey: r.api_key })));
  }
}

async function subscribe(db: Kysely<DB>, realmId: number, userIds: number[], recipientId: number): Promise<void> {
  for (let start = 0; start < userIds.length; start += BATCH) {
    const rows = userIds.slice(start, start + BATCH).map((user_id) => ({ realm_id: realmId, user_id, recipient_id: recipientId }));
    await db.insertInto("subscriptions").values(rows).execute();
  }
}

/** Presence rows for `users` (active in the last ten minutes), numbered after the realm's last update. */
async function seedPresence(db: Kysely<DB>, realm: BenchRealm, users: BenchUser[]): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const seq = await db.selectFrom("presence_sequence").select("last_update_id").where("realm_id", "=", realm.realmId).executeTakeFirst();
  const base = Number(seq?.last_update_id ?? 0);
  for (let start = 0; start < users.length; start += BATCH) {
    const rows = users.slice(start, start + BATCH).map((u, i) => ({
      realm_id: realm.realmId,
      user_id: u.id,
      last_active_time: now - ((start + i) % 600),
      last_connected_time: now - ((start + i) % 300),
      last_update_id: base + start + i + 1,
    }));
    await db.insertInto("presence").values(rows).execute();
  }
  await db.deleteFrom("presence_sequence").where("realm_id", "=", realm.realmId).execute();
  await db.insertInto("presence_sequence").values({ realm_id: realm.realmId, last_update_id: base + users.length }).execute();
}
