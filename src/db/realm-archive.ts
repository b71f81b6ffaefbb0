/**
 * An organization as a JSON archive, and back. The archive holds the rows of the tables
 * below (ids as in the source database); import inserts them into a new organization,
 * giving every row a new id and rewriting every reference, so it can load into a database
 * that already has other organizations. What is not archived is listed in README ("CLI").
 */
import type { Kysely } from "kysely";
import { generateApiKey } from "../lib/secrets.js";
import { withTransaction, type Db } from "./tx.js";

export const ARCHIVE_FORMAT = "parley-organization";
export const ARCHIVE_VERSION = 1;

type Row = Record<string, unknown>;

export interface RealmArchive {
  format: string;
  version: number;
  exported_at: number;
  realm: Row;
  users: Row[];
  user_groups: Row[];
  user_group_members: Row[];
  user_group_subgroups: Row[];
  channels: Row[];
  direct_message_groups: Row[];
  recipients: Row[];
  default_channels: Row[];
  subscriptions: Row[];
  messages: Row[];
  user_messages: Row[];
  reactions: Row[];
}

/** The archived tables, in an order where each row's references are loaded before it. */
const TABLES = [
  "users",
  "user_groups",
  "user_group_members",
  "user_group_subgroups",
  "channels",
  "direct_message_groups",
  "recipients",
  "default_channels",
  "subscriptions",
  "messages",
  "user_messages",
  "reactions",
] as const;

const REALM_GROUP_SETTINGS = [
  "can_invite_users_group_id", "can_create_groups_group_id", "can_manage_all_groups_group_id", "can_add_subscribers_group_id",
  "can_create_public_channel_group_id", "can_create_private_channel_group_id", "can_create_web_public_channel_group_id",
  "can_move_messages_between_channels_group_id", "can_move_messages_between_topics_group_id", "can_resolve_topics_group_id",
  "can_delete_own_message_group_id", "can_delete_any_message_group_id", "can_mention_many_users_group_id",
  "can_access_all_users_group_id", "direct_message_permission_group_id",
];
const GROUP_GROUP_SETTINGS = ["can_add_members_group_id", "can_join_group_id", "can_leave_group_id", "can_manage_group_id", "can_mention_group_id", "can_remove_members_group_id"];
const CHANNEL_GROUP_SETTINGS = ["can_remove_subscribers_group_id", "can_administer_channel_group_id", "can_send_message_group_id"];

export async function exportRealm(db: Db, realmId: number, now: number): Promise<RealmArchive> {
  const any = db as unknown as Kysely<any>;
  const realm = (await any.selectFrom("realms").selectAll().where("id", "=", realmId).executeTakeFirstOrThrow()) as Row;
  const archive: Partial<RealmArchive> = { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, exported_at: now, realm };
  for (const table of TABLES) {
    const query = any.selectFrom(table).selectAll().where("realm_id", "=", realmId);
    // Tables with an id keep their order; the link tables have none.
    const ordered = table === "user_messages" || table === "user_group_members" || table === "user_group_subgroups" ? query : query.orderBy("id");
    archive[table] = (await ordered.execute()) as Row[];
  }
  return archive as RealmArchive;
}

/** Why `value` is not an archive this version can import, or undefined. */
export function archiveProblem(value: unknown): string | undefined {
  const a = value as Partial<RealmArchive> | null;
  if (typeof a !== "object" || a === null || a.format !== ARCHIVE_FORMAT) return "not an organization archive made by 'parley export-realm'";
  if (a.version !== ARCHIVE_VERSION) return `archive version ${String(a.version)} is not supported (expected ${ARCHIVE_VERSION})`;
  if (typeof a.realm !== "object" || a.realm === null) return "the archive has no organization";
  for (const t of TABLES) if (!Array.isArray(a[t])) return `the archive has no '${t}' list`;
  return undefined;
}

/** Old id → new id, per table. */
class IdMap {
  private maps = new Map<string, Map<number, number>>();
  set(table: string, from: unknown, to: number): void {
    let m = this.maps.get(table);
    if (!m) this.maps.set(table, (m = new Map()));
    m.set(Number(from), to);
  }
  /** The new id; null stays null; a dangling reference is an error (a corrupt archive). */
  get(table: string, from: unknown): number | null {
    if (from === null || from === undefined) return null;
    const to = this.maps.get(table)?.get(Number(from));
    if (to === undefined) throw new Error(`the archive refers to ${table} ${String(from)}, which it does not contain`);
    return to;
  }
}

const RECIPIENT_TYPE_TABLE: Record<number, string> = { 1: "users", 2: "channels", 3: "direct_message_groups" };

/**
 * Loads `archive` as a new organization with subdomain `subdomain`, in one transaction.
 * API keys are new (they are unique server-wide); passwords, roles and flags are kept.
 */
export async function importRealm(db: Db, archive: RealmArchive, subdomain: string): Promise<{ realmId: number; counts: Record<string, number> }> {
  return withTransaction(db, async (tx) => {
    const any = tx as unknown as Kysely<any>;
    const ids = new IdMap();
    const insert = async (table: string, row: Row, source?: unknown): Promise<number> => {
      const { id: _old, ...values } = row;
      const { id } = (await any.insertInto(table).values(values).returning("id").executeTakeFirstOrThrow()) as { id: number };
      if (source !== undefined) ids.set(table, source, Number(id));
      return Number(id);
    };
    const nulls = (cols: readonly string[]) => Object.fromEntries(cols.map((c) => [c, null]));

    // The realm first, its references to users, groups and channels filled in at the end.
    const realmRefs = [...REALM_GROUP_SETTINGS, "notification_bot_id", "moderation_request_channel_id", "new_stream_announcements_stream_id"];
    const realmId = await insert("realms", { ...archive.realm, ...nulls(realmRefs), string_id: subdomain, realm_id: null });
    const inRealm = (row: Row) => ({ ...row, realm_id: realmId });

    for (const u of archive.users) await insert("users", { ...inRealm(u), bot_owner_id: null, api_key: generateApiKey() }, u.id);
    for (const g of archive.user_groups) await insert("user_groups", { ...inRealm(g), ...nulls(GROUP_GROUP_SETTINGS), creator_id: ids.get("users", g.creator_id) }, g.id);
    for (const m of archive.user_group_members) {
      await any.insertInto("user_group_members").values({ realm_id: realmId, group_id: ids.get("user_groups", m.group_id), user_id: ids.get("users", m.user_id) }).execute();
    }
    for (const s of archive.user_group_subgroups) {
      await any.insertInto("user_group_subgroups").values({ realm_id: realmId, supergroup_id: ids.get("user_groups", s.supergroup_id), subgroup_id: ids.get("user_groups", s.subgroup_id) }).execute();
    }
    for (const c of archive.channels) {
      const groups = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, ids.get("user_groups", c[k])]));
      await insert("channels", { ...inRealm(c), ...groups, creator_id: ids.get("users", c.creator_id), recipient_id: null, first_message_id: null }, c.id);
    }
    for (const g of archive.direct_message_groups) {
      const memberKey = String(g.member_key).split(",").map((id) => ids.get("users", id)!).sort((a, b) => a - b).join(",");
      await insert("direct_message_groups", { ...inRealm(g), member_key: memberKey, recipient_id: null }, g.id);
    }
    for (const r of archive.recipients) {
      const table = RECIPIENT_TYPE_TABLE[Number(r.type)];
      if (!table) throw new Error(`unknown recipient type ${String(r.type)}`);
      await insert("recipients", { ...inRealm(r), type_id: ids.get(table, r.type_id) }, r.id);
    }
    for (const d of archive.default_channels) await insert("default_channels", { ...inRealm(d), channel_id: ids.get("channels", d.channel_id) });
    for (const s of archive.subscriptions) {
      await insert("subscriptions", { ...inRealm(s), user_id: ids.get("users", s.user_id), recipient_id: ids.get("recipients", s.recipient_id) });
    }
    for (const m of archive.messages) {
      const row = { ...inRealm(m), sender_id: ids.get("users", m.sender_id), recipient_id: ids.get("recipients", m.recipient_id), channel_id: ids.get("channels", m.channel_id) };
      await insert("messages", row, m.id);
    }
    for (const um of archive.user_messages) {
      await any.insertInto("user_messages").values({ ...inRealm(um), user_id: ids.get("users", um.user_id), message_id: ids.get("messages", um.message_id) }).execute();
    }
    for (const r of archive.reactions) await insert("reactions", { ...inRealm(r), message_id: ids.get("messages", r.message_id), user_id: ids.get("users", r.user_id) });

    // The references that pointed forward.
    for (const u of archive.users) {
      if (u.bot_owner_id !== null && u.bot_owner_id !== undefined) await any.updateTable("users").set({ bot_owner_id: ids.get("users", u.bot_owner_id) }).where("id", "=", ids.get("users", u.id)).execute();
    }
    for (const g of archive.user_groups) {
      const set = Object.fromEntries(GROUP_GROUP_SETTINGS.map((k) => [k, ids.get("user_groups", g[k])]));
      await any.updateTable("user_groups").set(set).where("id", "=", ids.get("user_groups", g.id)).execute();
    }
    for (const c of archive.channels) {
      await any.updateTable("channels").set({ recipient_id: ids.get("recipients", c.recipient_id), first_message_id: ids.get("messages", c.first_message_id) }).where("id", "=", ids.get("channels", c.id)).execute();
    }
    for (const g of archive.direct_message_groups) {
      await any.updateTable("direct_message_groups").set({ recipient_id: ids.get("recipients", g.recipient_id) }).where("id", "=", ids.get("direct_message_groups", g.id)).execute();
    }
    const realm = archive.realm;
    await any
      .updateTable("realms")
      .set({
        ...Object.fromEntries(REALM_GROUP_SETTINGS.map((k) => [k, ids.get("user_groups", realm[k])])),
        notification_bot_id: ids.get("users", realm.notification_bot_id),
        moderation_request_channel_id: ids.get("channels", realm.moderation_request_channel_id),
        new_stream_announcements_stream_id: ids.get("channels", realm.new_stream_announcements_stream_id),
      })
      .where("id", "=", realmId)
      .execute();
    const counts = Object.fromEntries(TABLES.map((t) => [t, archive[t].length]));
    return { realmId, counts };
  });
}
