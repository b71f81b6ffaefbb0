/**
 * Role matrix (OWASP API5) for the administrator- and owner-only endpoints: the exact
 * outcome for guest, member, moderator, administrator, owner and bot, from the rules
 * upstream's views implement (require_realm_admin, access_user_by_id(for_admin=True),
 * owner-only role changes, channel administration). Failures never change the database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "../../src/db/schema.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import { Role } from "../../src/lib/roles.js";
import { createChannel } from "../support/channels.js";
import { expectError, expectSuccess, type Params } from "../support/client.js";
import { snapshotDb } from "../support/fuzz.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
let victim: User;
let linkifierId: number;

const ROLES = ["guest", "member", "moderator", "admin", "owner", "bot"] as const;
type RoleName = (typeof ROLES)[number];

type Outcome = "ok" | { msg: string; code?: string; status?: number };
const INSUFFICIENT: Outcome = { msg: "Insufficient permission" };
const MUST_ADMIN: Outcome = { msg: "Must be an organization administrator", code: "UNAUTHORIZED_PRINCIPAL" };
const MUST_OWNER: Outcome = { msg: "Must be an organization owner", code: "UNAUTHORIZED_PRINCIPAL" };
const NO_CHANNEL_ADMIN: Outcome = { msg: "You do not have permission to administer this channel." };
const INVALID_CHANNEL: Outcome = { msg: "Invalid channel ID" };

/** One endpoint: how to build the request (fresh objects per call) and the outcome per role. */
interface Row {
  name: string;
  method: "POST" | "PATCH" | "DELETE";
  request: (caller: User) => Promise<{ path: string; params: Params }>;
  expected: Record<RoleName, Outcome>;
  /** Undo a success so the next role starts from the same state. */
  undo?: () => Promise<void>;
}

const adminOnly = (): Record<RoleName, Outcome> => ({
  guest: MUST_ADMIN,
  member: MUST_ADMIN,
  moderator: MUST_ADMIN,
  admin: "ok",
  owner: "ok",
  bot: MUST_ADMIN,
});

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}`;

async function setUser(id: number, values: Partial<Pick<User, "role" | "is_active" | "full_name">>) {
  await s.db.updateTable("users").set(values).where("id", "=", id).execute();
}

function rows(): Row[] {
  return [
    {
      name: "PATCH /users/{id} full_name of a member",
      method: "PATCH",
      request: async () => ({ path: `/users/${victim.id}`, params: { full_name: unique("New Name ") } }),
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: "ok", owner: "ok", bot: INSUFFICIENT },
    },
    {
      name: "PATCH /users/{id} role of a member to moderator",
      method: "PATCH",
      request: async () => ({ path: `/users/${victim.id}`, params: { role: Role.MODERATOR } }),
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: "ok", owner: "ok", bot: INSUFFICIENT },
      undo: () => setUser(victim.id, { role: Role.MEMBER }),
    },
    {
      name: "PATCH /users/{id} role of a member to owner",
      method: "PATCH",
      request: async () => ({ path: `/users/${victim.id}`, params: { role: Role.OWNER } }),
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: MUST_OWNER, owner: "ok", bot: INSUFFICIENT },
      undo: () => setUser(victim.id, { role: Role.MEMBER }),
    },
    {
      name: "PATCH /users/{own id} role to owner (escalation)",
      method: "PATCH",
      request: async (caller) => ({ path: `/users/${caller.id}`, params: { role: Role.OWNER } }),
      // The owner's role does not change (already owner): a success with nothing to do.
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: MUST_OWNER, owner: "ok", bot: INSUFFICIENT },
    },
    {
      name: "PATCH /users/{own id} role to administrator (escalation)",
      method: "PATCH",
      request: async (caller) => ({ path: `/users/${caller.id}`, params: { role: Role.ADMINISTRATOR } }),
      expected: {
        guest: INSUFFICIENT,
        member: INSUFFICIENT,
        moderator: INSUFFICIENT,
        admin: "ok",
        // The only owner cannot stop being one.
        owner: { msg: "The owner permission cannot be removed from the only organization owner." },
        bot: INSUFFICIENT,
      },
    },
    {
      name: "PATCH /users/{id} of the member's own bot (bot owners administer their bots)",
      method: "PATCH",
      request: async () => ({ path: `/users/${s.realm.bot.id}`, params: { full_name: unique("Bot Name ") } }),
      expected: { guest: INSUFFICIENT, member: "ok", moderator: INSUFFICIENT, admin: "ok", owner: "ok", bot: INSUFFICIENT },
    },
    {
      name: "DELETE /users/{id} of a member",
      method: "DELETE",
      request: async () => ({ path: `/users/${victim.id}`, params: {} }),
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: "ok", owner: "ok", bot: INSUFFICIENT },
      undo: () => setUser(victim.id, { is_active: 1 }),
    },
    {
      name: "DELETE /users/{id} of the owner",
      method: "DELETE",
      request: async () => ({ path: `/users/${s.realm.owner.id}`, params: {} }),
      expected: {
        guest: INSUFFICIENT,
        member: INSUFFICIENT,
        moderator: INSUFFICIENT,
        admin: MUST_OWNER,
        owner: { msg: "Cannot deactivate the only organization owner" },
        bot: INSUFFICIENT,
      },
    },
    {
      name: "POST /users",
      method: "POST",
      request: async () => ({ path: "/users", params: { email: `${unique("new")}@example.com`, password: "a long enough passphrase 42", full_name: "New Person" } }),
      // Upstream: require_realm_admin, then can_create_users (here owners always may; see users-admin.ts).
      expected: { ...adminOnly(), admin: { msg: "User not authorized to create users" } },
    },
    {
      name: "POST /realm/profile_fields",
      method: "POST",
      request: async () => ({ path: "/realm/profile_fields", params: { name: unique("Field "), field_type: 1 } }),
      expected: adminOnly(),
    },
    {
      name: "POST /realm/filters",
      method: "POST",
      request: async () => {
        const n = unique("rm");
        return { path: "/realm/filters", params: { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` } };
      },
      expected: adminOnly(),
    },
    {
      name: "PATCH /realm/filters/{id}",
      method: "PATCH",
      request: async () => {
        const n = unique("up");
        return { path: `/realm/filters/${linkifierId}`, params: { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` } };
      },
      expected: adminOnly(),
    },
    {
      name: "DELETE /realm/filters/{id}",
      method: "DELETE",
      request: async () => ({ path: `/realm/filters/${await newLinkifier()}`, params: {} }),
      expected: adminOnly(),
    },
    {
      name: "PATCH /realm/linkifiers",
      method: "PATCH",
      request: async () => {
        const ids = (await s.db.selectFrom("linkifiers").select("id").where("realm_id", "=", s.realm.realm.id).orderBy("order").orderBy("id").execute()).map((r) => r.id);
        return { path: "/realm/linkifiers", params: { ordered_linkifier_ids: ids.reverse() } };
      },
      expected: adminOnly(),
    },
    {
      name: "PATCH /streams/{id} (public channel the caller may not be in)",
      method: "PATCH",
      request: async () => ({ path: `/streams/${(await newChannel()).id}`, params: { description: unique("desc ") } }),
      // The guest is not subscribed, so for them the channel does not exist.
      expected: { guest: INVALID_CHANNEL, member: NO_CHANNEL_ADMIN, moderator: NO_CHANNEL_ADMIN, admin: "ok", owner: "ok", bot: NO_CHANNEL_ADMIN },
    },
    {
      name: "PATCH /streams/{id} (private channel the caller is not in)",
      method: "PATCH",
      request: async () => ({ path: `/streams/${(await newChannel(true)).id}`, params: { description: unique("desc ") } }),
      // Admins administer every channel, private ones included (upstream's realm-admin rule).
      expected: { guest: INVALID_CHANNEL, member: INVALID_CHANNEL, moderator: INVALID_CHANNEL, admin: "ok", owner: "ok", bot: INVALID_CHANNEL },
    },
    {
      name: "DELETE /streams/{id}",
      method: "DELETE",
      request: async () => ({ path: `/streams/${(await newChannel()).id}`, params: {} }),
      expected: { guest: INVALID_CHANNEL, member: NO_CHANNEL_ADMIN, moderator: NO_CHANNEL_ADMIN, admin: "ok", owner: "ok", bot: NO_CHANNEL_ADMIN },
    },
    {
      name: "PATCH /realm",
      method: "PATCH",
      request: async () => ({ path: "/realm", params: { description: unique("about ") } }),
      expected: adminOnly(),
    },
    {
      name: "PATCH /realm (an owner-only setting)",
      method: "PATCH",
      request: async () => ({ path: "/realm", params: { waiting_period_threshold: ++counter } }),
      expected: { ...adminOnly(), admin: MUST_OWNER },
    },
    {
      name: "POST /streams/{id}/delete_topic",
      method: "POST",
      request: async () => ({ path: `/streams/${(await newChannel()).id}/delete_topic`, params: { topic_name: "t" } }),
      expected: adminOnly(),
    },
    {
      name: "POST /users/{id}/status",
      method: "POST",
      request: async () => ({ path: `/users/${victim.id}/status`, params: { status_text: unique("status ") } }),
      expected: { guest: INSUFFICIENT, member: INSUFFICIENT, moderator: INSUFFICIENT, admin: "ok", owner: "ok", bot: { msg: "This endpoint does not accept bot requests." } },
    },
  ];
}

async function newLinkifier(): Promise<number> {
  const n = unique("del");
  const res = await s.api.post(s.realm.owner, "/realm/filters", { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` });
  return expectSuccess(res).id as number;
}

/** A channel with the member, the moderator's peers and the bot subscribed (not the guest, not the moderator). */
async function newChannel(inviteOnly = false) {
  const { owner, member, bot } = s.realm;
  return createChannel(s, { name: unique("role-chan-"), invite_only: inviteOnly, subscribers: inviteOnly ? [owner] : [owner, member, bot], creator: owner });
}

beforeAll(async () => {
  s = await startTestServer();
  victim = await doCreateUser(s.ctx, s.realm.realm, { email: "victim@example.com", fullName: "Vic Tim", password: null, role: Role.MEMBER });
  linkifierId = await newLinkifier();
});
afterAll(() => s?.close());

describe("role matrix for administrator- and owner-only endpoints", () => {
  for (const row of rows()) {
    it(row.name, async () => {
      for (const role of ROLES) {
        const caller = s.realm[role];
        const { path, params } = await row.request(caller);
        const before = await snapshotDb(s.db);
        const res = await s.api.call(row.method, caller, path, params);
        const expected = row.expected[role];
        const where = `${role}: ${row.method} ${path} → ${res.body}`;
        if (expected === "ok") {
          expect(res.statusCode, where).toBe(200);
          expectSuccess(res);
          await row.undo?.();
        } else {
          expect(res.json().msg, where).toBe(expected.msg);
          expectError(res, expected.msg, { code: expected.code ?? "BAD_REQUEST", status: expected.status ?? 400 });
          expect(await snapshotDb(s.db), `${where}: database changed`).toEqual(before);
        }
      }
    });
  }
});
