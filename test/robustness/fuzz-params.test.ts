/**
 * Parameter fuzzing over the whole route table: for every route (and every method of its
 * path), as a member and as an administrator, bounded seeded batches of hostile inputs.
 * Oracles: no 5xx, always the JSON envelope, only expected statuses, no database change
 * on failure, no credential in any response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "../../src/db/schema.js";
import { allRoutes } from "../../src/http/routes.js";
import type { RouteDef } from "../../src/http/route.js";
import { basicAuth, injectChecked } from "../support/client.js";
import {
  allCredentials,
  buildRawRequest,
  hostileValue,
  HOSTILE_PATH_INTS,
  HOSTILE_PATH_SEGMENTS,
  PLACEMENTS,
  Rng,
  seedObjects,
  seedOf,
  snapshotDb,
  type RawValue,
  type RealmObjects,
} from "../support/fuzz.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** FUZZ_SEED and FUZZ_PER_ROUTE explore further locally; the defaults are what CI runs. */
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 30);
const EXTRA_SEED = process.env.FUZZ_SEED ?? "";
const ALLOWED_STATUSES = new Set([200, 400, 401, 403, 404, 405, 413, 429]);

let s: TestServer;
let A: RealmObjects;
let B: RealmObjects;

beforeAll(async () => {
  s = await startTestServer({ longPollSeconds: 1 });
  A = await seedObjects(s, "realm", "aqx");
  B = await seedObjects(s, "other", "bzq");
});
afterAll(() => s?.close());

/** Parameter names each route reads (a route missing here is fuzzed with the whole pool). */
const ROUTE_PARAMS: Record<string, string[]> = {
  "POST /fetch_api_key": ["username", "password"],
  "GET /streams": ["include_public", "include_web_public", "include_subscribed", "exclude_archived", "include_all", "include_default", "include_owner_subscribed"],
  "GET /get_stream_id": ["stream"],
  "PATCH /streams/{stream_id:int}": ["description", "is_private", "is_default_stream", "history_public_to_subscribers", "is_web_public", "new_name"],
  "POST /realm/profile_fields": ["name", "hint", "field_type", "field_data", "display_in_profile_summary", "required", "editable_by_user"],
  "PATCH /users/me/profile_data": ["data"],
  "POST /register": ["apply_markdown", "client_gravatar", "slim_presence", "presence_history_limit_days", "all_public_streams", "include_subscribers", "client_capabilities", "event_types", "fetch_event_types", "narrow", "queue_lifespan_secs"],
  "GET /events": ["queue_id", "last_event_id", "dont_block"],
  "DELETE /events": ["queue_id"],
  "POST /realm/filters": ["pattern", "url_template"],
  "PATCH /realm/filters/{filter_id:int}": ["pattern", "url_template"],
  "PATCH /realm/linkifiers": ["ordered_linkifier_ids"],
  "PATCH /messages/{message_id:int}": ["stream_id", "topic", "propagate_mode", "send_notification_to_old_thread", "send_notification_to_new_thread", "content"],
  "POST /messages/flags": ["messages", "op", "flag"],
  "POST /messages/flags/narrow": ["anchor", "include_anchor", "num_before", "num_after", "narrow", "op", "flag"],
  "POST /messages": ["type", "to", "topic", "subject", "content", "local_id", "queue_id", "read_by_sender"],
  "POST /messages/render": ["content"],
  "GET /messages": ["anchor", "include_anchor", "num_before", "num_after", "narrow", "use_first_unread_anchor", "apply_markdown", "client_gravatar", "allow_empty_topic_name", "message_ids"],
  "GET /messages/{message_id:int}": ["apply_markdown", "allow_empty_topic_name"],
  "POST /users/me/presence": ["status", "ping_only", "new_user_input", "slim_presence", "last_update_id", "history_limit_days"],
  "POST /users/me/subscriptions": ["subscriptions", "principals", "invite_only", "is_web_public", "is_default_stream", "history_public_to_subscribers", "announce", "authorization_errors_fatal"],
  "DELETE /users/me/subscriptions": ["subscriptions", "principals"],
  "POST /typing": ["type", "op", "to", "stream_id", "topic"],
  "POST /messages/{message_id:int}/typing": ["op"],
  "PATCH /users/{user_id:int}": ["full_name", "role", "profile_data", "new_email"],
  "DELETE /users/{user_id:int}": ["deactivation_notification_comment"],
  "POST /users": ["email", "password", "full_name"],
  "GET /users": ["client_gravatar", "include_custom_profile_fields", "user_ids"],
  "GET /users/{user_id:int}": ["client_gravatar", "include_custom_profile_fields"],
  "GET /users/{email}": ["client_gravatar", "include_custom_profile_fields"],
  "PATCH /settings": ["full_name", "default_language", "timezone", "enable_drafts_synchronization", "presence_enabled", "email_address_visibility"],
};
const POOL = [...new Set(Object.values(ROUTE_PARAMS).flat())];

/** Plausible values, so hostile ones also reach checks past the first parameter. */
function plausible(name: string, rng: Rng): RawValue {
  const t = (text: string) => ({ text });
  switch (name) {
    case "to":
      return t(rng.pick([JSON.stringify([s.realm.other.id]), A.publicChannel.name, JSON.stringify(A.publicChannel.id), JSON.stringify([B.victim.id])]));
    case "type":
      return t(rng.pick(["stream", "channel", "direct", "private"]));
    case "op":
      return t(rng.pick(["add", "remove", "start", "stop"]));
    case "flag":
      return t(rng.pick(["read", "starred", "wildcard_mentioned"]));
    case "messages":
    case "message_ids":
      return t(JSON.stringify(rng.pick([[A.channelMessageId], [B.channelMessageId], [A.directMessageId, 999999]])));
    case "stream_id":
      return t(String(rng.pick([A.publicChannel.id, A.privateChannel.id, B.publicChannel.id])));
    case "stream":
      return t(rng.pick([A.publicChannel.name, B.publicChannel.name]));
    case "narrow":
      return t(rng.pick(["[]", JSON.stringify([{ operator: "channel", operand: B.publicChannel.id }]), JSON.stringify([["stream", A.publicChannel.name]])]));
    case "anchor":
      return t(rng.pick(["newest", "oldest", "first_unread", String(A.channelMessageId)]));
    case "num_before":
    case "num_after":
      return t(rng.pick(["0", "1", "5"]));
    case "subscriptions":
      return t(rng.pick([JSON.stringify([{ name: A.publicChannel.name }]), JSON.stringify([B.publicChannel.name]), JSON.stringify([{ name: "fuzz-new" }])]));
    case "principals":
    case "user_ids":
    case "ordered_linkifier_ids":
      return t(JSON.stringify(rng.pick([[B.victim.id], [A.victim.id], [A.linkifierId, B.linkifierId]])));
    case "role":
      return t(rng.pick(["100", "200", "300", "400", "600"]));
    case "username":
      return t(rng.pick([s.realm.member.delivery_email, s.other.member.delivery_email]));
    case "password":
      return t("wrong password");
    case "field_type":
      return t(rng.pick(["1", "3", "6"]));
    case "default_language":
      return t(rng.pick(["en", "de", "zz"]));
    case "timezone":
      return t(rng.pick(["Europe/Berlin", "UTC", "Mars/Olympus"]));
    case "email_address_visibility":
      return t(rng.pick(["1", "2", "3", "4", "5"]));
    case "topic":
    case "content":
    case "description":
    case "full_name":
    case "name":
    case "hint":
      return t(`fuzz ${name} ${rng.int(1000)}`);
    case "new_name":
      return t(`fuzz-renamed-${rng.int(1000)}`);
    case "propagate_mode":
      return t(rng.pick(["change_one", "change_later", "change_all"]));
    case "status":
      return t(rng.pick(["active", "idle"]));
    case "queue_id":
      return t("1700000000:1");
    case "last_event_id":
    case "last_update_id":
      return t("-1");
    case "pattern":
      return t(`fz${rng.int(1000)}-(?P<id>[0-9]+)`);
    case "url_template":
      return t("https://fuzz.example.net/{id}");
    case "email":
    case "new_email":
      return t(`fuzz${rng.int(1000)}@example.com`);
    case "data":
    case "profile_data":
      return t(JSON.stringify([{ id: rng.pick([A.profileFieldId, B.profileFieldId]), value: "v" }]));
    case "event_types":
    case "fetch_event_types":
      return t(JSON.stringify(["message", "realm_user"]));
    case "client_capabilities":
      return t("{}");
    case "dont_block":
      return t("true");
    default:
      return rng.chance(0.5) ? t("true") : t("fuzz");
  }
}

/** Candidate values for each path segment kind, by segment name. */
function pathCandidates(name: string, isInt: boolean): string[] {
  const ids: Record<string, number[]> = {
    stream_id: [A.publicChannel.id, A.privateChannel.id, B.publicChannel.id, B.privateChannel.id],
    message_id: [A.channelMessageId, A.directMessageId, B.channelMessageId, B.directMessageId],
    user_id: [A.victim.id, B.victim.id, s.other.member.id],
    filter_id: [A.linkifierId, B.linkifierId],
  };
  if (isInt) return [...(ids[name] ?? []).map(String), ...HOSTILE_PATH_INTS];
  return [
    A.victim.delivery_email,
    B.victim.delivery_email,
    String(A.victim.id),
    String(B.victim.id),
    ...HOSTILE_PATH_SEGMENTS,
  ].map((v) => (v.includes("%") ? v : encodeURIComponent(v)));
}

function fillPath(path: string, rng: Rng): string {
  return path
    .replace(/\{(\w+):int\}/g, (_, n: string) => rng.pick(pathCandidates(n, true)))
    .replace(/\{(\w+)\*?\}/g, (_, n: string) => rng.pick(pathCandidates(n, false)));
}

/** Restores the fuzzing callers after a successful request changed them (role, email, activity). */
async function restoreCallers(originals: User[]): Promise<void> {
  for (const u of originals) {
    const { id, ...rest } = u;
    await s.db.updateTable("users").set(rest).where("id", "=", id).execute();
  }
}

function checkEnvelope(status: number, text: string, where: string) {
  expect(ALLOWED_STATUSES.has(status), `${where}: status ${status} ${text.slice(0, 300)}`).toBe(true);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not JSON (${status}): ${text.slice(0, 300)}`);
  }
  expect(typeof body.result, where).toBe("string");
  expect(typeof body.msg, where).toBe("string");
  if (status !== 200) {
    expect(body.result, where).toBe("error");
    expect(typeof body.code, `${where}: ${text.slice(0, 300)}`).toBe("string");
  } else {
    expect(body.result, where).toBe("success");
  }
  return body;
}

async function assertNoSecrets(text: string, route: RouteDef, caller: User, where: string) {
  if (route.path === "/fetch_api_key") return;
  for (const c of await allCredentials(s.db)) {
    if (!text.includes(c.secret)) continue;
    // Upstream returns bot API keys in the register state's realm_bots, to the bot's owner and to administrators.
    const allowedBotKey = route.path === "/register" && c.isBot && c.realmId === caller.realm_id && (c.ownerId === caller.id || caller.role <= 200);
    expect(allowedBotKey, `${where}: response contains a credential of user ${c.userId}`).toBe(true);
  }
}

const CALLERS = ["member", "admin"] as const;

describe("parameter fuzzing", () => {
  // Distinct method+path pairs, in table order: each route is its own test for reporting.
  for (const r of allRoutes) {
    for (const who of CALLERS) {
      it(`${r.method} ${r.path} as ${who}`, async () => {
        const caller = s.realm[who];
        const originals = await s.db.selectFrom("users").selectAll().where("id", "in", [s.realm.member.id, s.realm.admin.id]).execute();
        const rng = new Rng(seedOf(`${EXTRA_SEED}${who} ${r.method} ${r.path}`));
        const hints = ROUTE_PARAMS[`${r.method} ${r.path}`] ?? POOL;
        let before = await snapshotDb(s.db);
        for (let i = 0; i < PER_ROUTE; i++) {
          // Most requests carry every parameter the route reads, plausible but for one hostile value
          // (and maybe one missing), so checks past the first parameter are reached too.
          const full = rng.chance(0.6) && ROUTE_PARAMS[`${r.method} ${r.path}`] !== undefined;
          let names = full ? [...hints] : rng.sample(rng.chance(0.8) ? hints : POOL, 1 + rng.int(4));
          if (full && rng.chance(0.3)) names.splice(rng.int(names.length), 1);
          names = names.filter((n) => n !== "subject" || !names.includes("topic"));
          const hostileIndex = rng.int(names.length + 1); // sometimes nothing hostile
          const params: Array<[string, RawValue]> = names.map((n, j) => [n, j === hostileIndex ? hostileValue(rng) : plausible(n, rng)]);
          if (rng.chance(0.15) && params.length > 0) params.push([params[0][0], hostileValue(rng)]); // duplicate key
          if (rng.chance(0.1)) params.push([rng.pick(["__proto__", "constructor", "prototype", "hasOwnProperty", "", "a[b]", "x".repeat(300)]), hostileValue(rng)]);
          const placement = rng.pick(PLACEMENTS);
          const path = fillPath(r.path, rng);
          const headers: Record<string, string> = { host: s.realm.host, authorization: basicAuth(caller) };
          const req = buildRawRequest(r.method, path, params, placement, headers);
          const where = `${who} #${i} ${req.method} ${req.url.slice(0, 200)} [${placement}] ${JSON.stringify(params).slice(0, 300)}`;
          const res = await injectChecked(s.app, { method: req.method as "GET", url: req.url, headers: req.headers, payload: req.payload });
          checkEnvelope(res.statusCode, res.body, where);
          if (process.env.FUZZ_STATS) console.log("STAT", r.method, r.path, res.statusCode, String(JSON.parse(res.body).msg).slice(0, 80));
          await assertNoSecrets(res.body, r, caller, where);
          const after = await snapshotDb(s.db);
          if (res.statusCode !== 200) {
            expect(after, `${where}: database changed by a failed request: ${res.body.slice(0, 200)}`).toEqual(before);
          } else if (r.method !== "GET") {
            await restoreCallers(originals);
            before = await snapshotDb(s.db);
            continue;
          }
          before = after;
        }
      });
    }
  }

  it("no hostile request stored a NUL character or a lone surrogate (PostgreSQL cannot store NUL)", async () => {
    const tables = (await s.db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith("parley_") && !n.startsWith("sqlite_"));
    for (const t of tables) {
      for (const row of await s.db.selectFrom(t as "users").selectAll().execute()) {
        for (const [col, value] of Object.entries(row)) {
          if (typeof value !== "string") continue;
          expect(value.includes("\u0000"), `${t}.${col} holds a NUL: ${JSON.stringify(value).slice(0, 100)}`).toBe(false);
          expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value), `${t}.${col} holds a lone surrogate`).toBe(false);
        }
      }
    }
  });

  it("every path answers other methods with the JSON 405", async () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of allRoutes) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method));
    for (const [path, methods] of byPath) {
      for (const m of ["GET", "POST", "PATCH", "DELETE", "PUT"]) {
        if (methods.has(m)) continue;
        const url = `/api/v1${fillPath(path, new Rng(1))}`;
        const res = await injectChecked(s.app, { method: m as "GET", url, headers: { host: s.realm.host, authorization: basicAuth(s.realm.member) } });
        const body = checkEnvelope(res.statusCode, res.body, `${m} ${url}`);
        expect(res.statusCode, `${m} ${url}`).toBe(405);
        expect(body.code).toBe("METHOD_NOT_ALLOWED");
      }
    }
  });
});
