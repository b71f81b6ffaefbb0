/**
 * Cross-organization authorization (OWASP API1/API3): a caller of organization A naming an
 * object of organization B (path or parameter) gets exactly the answer a non-existent object
 * gets, the database does not change, and B's data never appears in any response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { User } from "../../src/db/schema.js";
import { allRoutes } from "../../src/http/routes.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { expectSuccess, type Params } from "../support/client.js";
import { seedObjects, snapshotDb, type RealmObjects } from "../support/fuzz.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
let A: RealmObjects;
let B: RealmObjects;
/** B's member's event queue, and A's other member's (same organization, other user). */
let bQueueId: string;
let aOtherQueueId: string;
/** B's system groups (their ids are as foreign as a named group's). */
let systemGroupIdsB: number[];
let bInviteId: number;
let bLinkId: number;
/** An upload of B's (its path after the realm id), for the upload routes. */
let bAttachmentId: number;
const B_UPLOAD_PATH = "ab/bzq-upload/secret.txt";

const MISSING_ID = 987654;
const MISSING_EMAIL = "nobody-here@example.com";
/** A custom emoji of organization B. */
const B_EMOJI = "bzq_emoji";

beforeAll(async () => {
  s = await startTestServer({ longPollSeconds: 1 });
  A = await seedObjects(s, "realm", "aqx");
  B = await seedObjects(s, "other", "bzq");
  await s.db.insertInto("realm_emoji").values({ realm_id: s.other.realm.id, name: B_EMOJI, file_name: "b.png", author_id: s.other.owner.id }).execute();
  bQueueId = expectSuccess(await s.api.post(s.other.member, "/register", { event_types: ["message"] })).queue_id as string;
  systemGroupIdsB = (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.other.realm.id).where("is_system_group", "=", 1).orderBy("id").execute()).map((g) => g.id);
  aOtherQueueId = expectSuccess(await s.api.post(s.realm.other, "/register", { event_types: ["message"] })).queue_id as string;
  expectSuccess(await s.api.post(s.other.admin, "/invites", { invitee_emails: "bzq-invitee@example.com", stream_ids: [] }));
  expectSuccess(await s.api.post(s.other.admin, "/invites/multiuse", {}));
  const bInvites = expectSuccess(await s.api.get(s.other.admin, "/invites")).invites as Array<{ id: number; is_multiuse: boolean }>;
  bInviteId = bInvites.find((i) => !i.is_multiuse)!.id;
  bLinkId = bInvites.find((i) => i.is_multiuse)!.id;
  expectSuccess(await s.api.post(s.other.member, "/navigation_views", { fragment: "narrow/is/bzq", is_pinned: true, name: "bzq" }));
  bAttachmentId = (
    await s.db
      .insertInto("attachments")
      .values({ realm_id: s.other.realm.id, owner_id: s.other.member.id, path_id: `${s.other.realm.id}/${B_UPLOAD_PATH}`, file_name: "secret.txt", content_type: "text/plain", size: 3, create_time: 1 })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => s?.close());

interface Case {
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path and parameters for a given foreign-or-missing value. */
  build: (v: string | number) => { path: string; params: Params };
  foreign: () => string | number;
  missing: () => string | number;
  /** Call without credentials (fetch_api_key). */
  anonymous?: boolean;
}

/** Which object of B a path segment names. */
function foreignFor(segment: string): { foreign: () => number | string; missing: () => number | string }[] {
  switch (segment) {
    case "stream_id":
      return [
        { foreign: () => B.publicChannel.id, missing: () => MISSING_ID },
        { foreign: () => B.privateChannel.id, missing: () => MISSING_ID },
      ];
    case "message_id":
      return [
        { foreign: () => B.channelMessageId, missing: () => MISSING_ID },
        { foreign: () => B.directMessageId, missing: () => MISSING_ID },
      ];
    case "user_id":
      return [{ foreign: () => B.victim.id, missing: () => MISSING_ID }];
    case "filter_id":
      return [{ foreign: () => B.linkifierId, missing: () => MISSING_ID }];
    case "user_group_id":
      return [
        { foreign: () => B.userGroupId, missing: () => MISSING_ID },
        { foreign: () => systemGroupIdsB[0], missing: () => MISSING_ID },
      ];
    case "email":
      return [{ foreign: () => B.victim.delivery_email, missing: () => MISSING_EMAIL }];
    case "user_id_or_email":
      return [
        { foreign: () => B.victim.delivery_email, missing: () => MISSING_EMAIL },
        { foreign: () => s.other.member.id, missing: () => MISSING_ID },
      ];
    case "invite_id":
      return [
        { foreign: () => bInviteId, missing: () => MISSING_ID },
        { foreign: () => bLinkId, missing: () => MISSING_ID },
      ];
    case "fragment":
      return [{ foreign: () => "narrow/is/bzq", missing: () => "narrow/is/nothing-here" }];
    case "draft_id":
      return [{ foreign: () => B.draftId, missing: () => MISSING_ID }];
    case "scheduled_message_id":
      return [{ foreign: () => B.scheduledMessageId, missing: () => MISSING_ID }];
    case "reminder_id":
      return [{ foreign: () => B.reminderId, missing: () => MISSING_ID }];
    case "emoji_name":
      return [{ foreign: () => B_EMOJI, missing: () => "no_such_emoji" }];
    case "attachment_id":
      return [{ foreign: () => bAttachmentId, missing: () => MISSING_ID }];
    case "realm_id_str":
      return [{ foreign: () => s.other.realm.id, missing: () => MISSING_ID }];
    case "filename":
      return [{ foreign: () => B_UPLOAD_PATH, missing: () => "ab/nothing-here/x.txt" }];
    default:
      throw new Error(`cross-realm test: map path segment {${segment}} to an object kind`);
  }
}

/** Parameters that get a path-id route past parsing, so the access check is what answers. */
const PATH_ROUTE_PARAMS: Record<string, Params> = {
  "PATCH /streams/{stream_id:int}": { description: "changed" },
  "PATCH /realm/filters/{filter_id:int}": { pattern: "zz-(?P<id>[0-9]+)", url_template: "https://zz.example.net/{id}" },
  "PATCH /messages/{message_id:int}": { content: "changed" },
  "POST /messages/{message_id:int}/typing": { op: "start" },
  "PATCH /users/{user_id:int}": { full_name: "Changed Name" },
  "PATCH /user_groups/{user_group_id:int}": { description: "changed" },
  "POST /user_groups/{user_group_id:int}/members": { add_subgroups: [MISSING_ID] },
  "POST /user_groups/{user_group_id:int}/subgroups": { add: [MISSING_ID] },
  "PATCH /drafts/{draft_id:int}": { draft: { type: "", to: [], topic: "", content: "changed" } },
  "PATCH /scheduled_messages/{scheduled_message_id:int}": { content: "changed" },
  "POST /messages/{message_id:int}/reactions": { emoji_name: "tada" },
  "DELETE /messages/{message_id:int}/reactions": { emoji_name: "tada" },
  "POST /streams/{stream_id:int}/delete_topic": { topic_name: "t" },
  "POST /users/{user_id:int}/status": { status_text: "changed" },
};

/** A's own object for a path segment, for routes naming two objects (one of them B's). */
function ownFor(segment: string): number | string {
  const own: Record<string, number | string> = {
    user_id: A.victim.id,
    user_group_id: A.userGroupId,
    stream_id: A.publicChannel.id,
    message_id: A.channelMessageId,
    realm_id_str: s.realm.realm.id,
    filename: B_UPLOAD_PATH,
  };
  if (!(segment in own)) throw new Error(`cross-realm test: no own object for {${segment}}`);
  return own[segment];
}

function pathCases(): Case[] {
  const out: Case[] = [];
  for (const r of allRoutes) {
    const segments = [...r.path.matchAll(/\{(\w+)(?::int|\*)?\}/g)].map((m) => m[1]);
    if (segments.length === 0) continue;
    // Routes naming two objects: B's object in one segment, A's own in the others.
    segments.forEach((segment, index) => {
      for (const kind of foreignFor(segment)) {
        out.push({
          name: `${r.method} ${r.path}`,
          method: r.method as Case["method"],
          build: (v) => {
            let i = 0;
            const path = r.path.replace(/\{(\w+)(?::int|\*)?\}/g, (_, name: string) => (i++ === index ? encodeURIComponent(String(v)) : String(ownFor(name))));
            return { path, params: PATH_ROUTE_PARAMS[`${r.method} ${r.path}`] ?? {} };
          },
          ...kind,
        });
      }
    });
  }
  return out;
}

/** Ids and names of B passed as parameters. */
function paramCases(): Case[] {
  const c = (name: string, method: Case["method"], path: string, params: (v: any) => Params, foreign: () => any, missing: () => any): Case => ({
    name,
    method,
    build: (v) => ({ path, params: params(v) }),
    foreign,
    missing,
  });
  const chanId = () => B.publicChannel.id;
  const privId = () => B.privateChannel.id;
  const msgId = () => B.channelMessageId;
  const missingId = () => MISSING_ID;
  return [
    c("send to B's channel by id", "POST", "/messages", (v) => ({ type: "stream", to: v, topic: "t", content: "x" }), chanId, missingId),
    c("send to B's channel by name", "POST", "/messages", (v) => ({ type: "stream", to: v, topic: "t", content: "x" }), () => B.publicChannel.name, () => "no-such-channel"),
    c("direct message to B's user by id", "POST", "/messages", (v) => ({ type: "direct", to: [v], content: "x" }), () => s.other.member.id, missingId),
    c("direct message to B's user by email", "POST", "/messages", (v) => ({ type: "direct", to: [v], content: "x" }), () => s.other.member.delivery_email, () => MISSING_EMAIL),
    c("flags on B's message", "POST", "/messages/flags", (v) => ({ messages: [v], op: "add", flag: "starred" }), msgId, missingId),
    c("flags on B's direct message", "POST", "/messages/flags", (v) => ({ messages: [v], op: "add", flag: "read" }), () => B.directMessageId, missingId),
    c("typing in B's channel", "POST", "/typing", (v) => ({ type: "stream", stream_id: v, topic: "t", op: "start" }), chanId, missingId),
    c("typing to B's user", "POST", "/typing", (v) => ({ type: "direct", to: [v], op: "start" }), () => s.other.member.id, missingId),
    c("subscribe B's user to A's channel", "POST", "/users/me/subscriptions", (v) => ({ subscriptions: [{ name: A.publicChannel.name }], principals: [v] }), () => s.other.member.id, missingId),
    c("subscribe B's user by email", "POST", "/users/me/subscriptions", (v) => ({ subscriptions: [{ name: A.publicChannel.name }], principals: [v] }), () => s.other.member.delivery_email, () => MISSING_EMAIL),
    c("unsubscribe from B's channel", "DELETE", "/users/me/subscriptions", (v) => ({ subscriptions: [v] }), () => B.publicChannel.name, () => "no-such-channel"),
    c("unsubscribe B's user", "DELETE", "/users/me/subscriptions", (v) => ({ subscriptions: [A.publicChannel.name], principals: [v] }), () => s.other.member.id, missingId),
    c("channel id of B's channel", "GET", "/get_stream_id", (v) => ({ stream: v }), () => B.publicChannel.name, () => "no-such-channel"),
    c("users by B's id", "GET", "/users", (v) => ({ user_ids: [v] }), () => s.other.member.id, missingId),
    c("narrow to B's channel id", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: v }] }), chanId, missingId),
    c("narrow to B's private channel", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: v }] }), privId, missingId),
    c("narrow to B's channel name", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: v }] }), () => B.publicChannel.name, () => "no-such-channel"),
    c("narrow to B's sender", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "sender", operand: v }] }), () => s.other.member.delivery_email, () => MISSING_EMAIL),
    c("narrow to B's direct conversation", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "dm", operand: [v] }] }), () => s.other.member.id, missingId),
    c("narrow to B's message id", "GET", "/messages", (v) => ({ anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "id", operand: v }] }), msgId, missingId),
    c("anchor at B's message", "GET", "/messages", (v) => ({ anchor: v, num_before: 0, num_after: 0 }), msgId, missingId),
    c("flag B's channel by narrow", "POST", "/messages/flags/narrow", (v) => ({ anchor: "oldest", num_before: 0, num_after: 10, op: "add", flag: "read", narrow: [{ operator: "channel", operand: v }] }), chanId, missingId),
    c("move A's message to B's channel", "PATCH", `/messages/{A}`, (v) => ({ stream_id: v }), chanId, missingId),
    c("reorder with B's linkifier", "PATCH", "/realm/linkifiers", (v) => ({ ordered_linkifier_ids: [A.linkifierId, v] }), () => B.linkifierId, missingId),
    c("own profile data in B's field", "PATCH", "/users/me/profile_data", (v) => ({ data: [{ id: v, value: "x" }] }), () => B.profileFieldId, missingId),
    c("A user's profile data in B's field", "PATCH", `/users/{victim}`, (v) => ({ profile_data: [{ id: v, value: "x" }] }), () => B.profileFieldId, missingId),
    c("poll B's event queue", "GET", "/events", (v) => ({ queue_id: v, last_event_id: -1, dont_block: true }), () => bQueueId, () => "1700000000:99"),
    c("delete B's event queue", "DELETE", "/events", (v) => ({ queue_id: v }), () => bQueueId, () => "1700000000:99"),
    c("poll another A user's event queue", "GET", "/events", (v) => ({ queue_id: v, last_event_id: -1, dont_block: true }), () => aOtherQueueId, () => "1700000000:98"),
    c("delete another A user's event queue", "DELETE", "/events", (v) => ({ queue_id: v }), () => aOtherQueueId, () => "1700000000:98"),
    {
      ...c("fetch_api_key with B's owner credentials on A's host", "POST", "/fetch_api_key", (v) => ({ username: v, password: OWNER_PASSWORD }), () => s.other.owner.delivery_email, () => MISSING_EMAIL),
      anonymous: true,
    },
  ];
}

function resolvePath(path: string): string {
  return path.replace("{A}", String(A.channelMessageId)).replace("{victim}", String(A.victim.id));
}

async function call(caller: User | null, c: Case, v: string | number): Promise<{ res: LightMyRequestResponse; sent: string }> {
  const { path, params } = c.build(v);
  const res = await s.api.call(c.method, caller, resolvePath(path), params, { host: s.realm.host });
  return { res, sent: JSON.stringify({ path, params }) };
}

/** The body with the value the caller sent replaced, so "ID 7" and "ID 987654" compare equal. */
function normalized(res: LightMyRequestResponse, v: string | number) {
  const token = String(v);
  const walk = (x: unknown): unknown => {
    if (typeof x === "string") return x.split(token).join("<VALUE>");
    if (typeof x === "number") return String(x) === token ? "<VALUE>" : x;
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, y]) => [k.split(token).join("<VALUE>"), walk(y)]));
    return x;
  };
  return { status: res.statusCode, body: walk(JSON.parse(res.body)) };
}

function assertNoForeignData(body: string, sent: string, where: string) {
  for (const secret of B.secrets) {
    if (sent.includes(secret)) continue; // echoing the caller's own input is not a leak
    expect(body.includes(secret), `${where}: response contains organization B's "${secret}": ${body.slice(0, 300)}`).toBe(false);
  }
  for (const u of [s.other.owner, s.other.admin, s.other.member, s.other.other, s.other.guest, s.other.bot, B.victim]) {
    expect(body.includes(u.api_key), `${where}: B's API key`).toBe(false);
  }
}

describe("cross-organization objects answer like missing ones", () => {
  const cases = () => [...pathCases(), ...paramCases()];
  // Build names eagerly from the route table for reporting; values are resolved at run time.
  const names = [
    ...allRoutes.filter((r) => /\{\w+/.test(r.path)).map((r) => `${r.method} ${r.path}`),
    "parameter ids and names",
  ];
  for (const who of ["member", "admin"] as const) {
    it(`as ${who}: ${names.length - 1} path-id routes and the parameter cases`, async () => {
      const caller = s.realm[who];
      for (const c of cases()) {
        const user = c.anonymous ? null : caller;
        const foreign = c.foreign();
        const missing = c.missing();
        const where = `${who} ${c.name} (${c.method} ${c.build(foreign).path})`;
        const before = await snapshotDb(s.db);
        const f = await call(user, c, foreign);
        const afterForeign = await snapshotDb(s.db);
        const m = await call(user, c, missing);
        assertNoForeignData(f.res.body, f.sent, where);
        assertNoForeignData(m.res.body, m.sent, where);
        if (process.env.XR_DEBUG) console.log("XR", where, f.res.statusCode, f.res.body.slice(0, 160).trim());
        expect(normalized(f.res, foreign), where).toEqual(normalized(m.res, missing));
        if (f.res.statusCode !== 200) expect(afterForeign, `${where}: database changed`).toEqual(before);
      }
    });
  }

  it("no route's response to A's users contains B's data (every route, plain call)", async () => {
    for (const r of allRoutes) {
      for (const who of ["owner", "member", "guest"] as const) {
        const path = r.path
          .replace(/\{(\w+):int\}/g, (_, n: string) => String({ stream_id: A.publicChannel.id, message_id: A.channelMessageId, user_id: A.victim.id, filter_id: A.linkifierId, user_group_id: A.userGroupId }[n] ?? 1))
          .replace(/\{\w+\*?\}/, encodeURIComponent(A.victim.delivery_email));
        if (r.method === "DELETE" && (path === "/users/me" || path.startsWith("/users/"))) continue; // keep the cast intact
        const res = await s.api.call(r.method, s.realm[who], path, r.path === "/messages" && r.method === "GET" ? { anchor: "newest", num_before: 100, num_after: 0 } : {}, {
          host: s.realm.host,
        });
        expect(res.statusCode, `${r.method} ${path}`).toBeLessThan(500);
        assertNoForeignData(res.body, "", `${who} ${r.method} ${path}`);
      }
    }
  });
});
