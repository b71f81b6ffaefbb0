/**
 * POST /register is put together from cached, serialized parts (the user list GET /users
 * serves, full presence, each realm's channels with their subscribers, user groups, bots):
 * each test fills them, changes the underlying rows and expects the change in the next
 * register; the cached answer equals the one built from cold caches for every kind of
 * caller; and an event that arrives while the state is read is applied to the serialized
 * parts too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doCreateUser } from "../../src/actions/users-create.js";
import type { User } from "../../src/db/schema.js";
import { BotType, Role } from "../../src/lib/roles.js";
import { expectSuccess, type Params } from "../support/client.js";
import { register, withoutVolatile } from "../support/events.js";
import { startTestServer, type TestServer } from "../support/server.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

let counter = 0;
async function makeUser(role: number = Role.MEMBER): Promise<User> {
  counter++;
  return doCreateUser(s.ctx, s.realm.realm, { email: `regcache${counter}@example.com`, fullName: `Register Cache ${counter}`, password: null, role });
}
/** The database without the cache write watcher: a write another node made. */
const elsewhere = () => s.db.withoutPlugins();
const slim = { slim_presence: true };
const userIn = (state: Record<string, any>, id: number) => [...state.realm_users, ...state.realm_non_active_users].find((u: any) => u.user_id === id);
const channelIn = (list: any[], name: string) => list.find((c: any) => c.name === name);
const groupIn = (state: Record<string, any>, name: string) => state.realm_user_groups.find((g: any) => g.name === name);

describe("POST /register from cached parts", () => {
  it("shows a rename, a role change, a deactivation and a profile value in the next register", async () => {
    const viewer = await makeUser();
    const user = await makeUser();
    await register(s, viewer);
    expectSuccess(await s.api.patch(user, "/settings", { full_name: "Renamed For Register" }));
    expect(userIn(await register(s, viewer), user.id).full_name).toBe("Renamed For Register");

    expectSuccess(await s.api.patch(s.realm.owner, `/users/${user.id}`, { role: Role.MODERATOR }));
    const afterRole = await register(s, viewer);
    expect(userIn(afterRole, user.id).role).toBe(Role.MODERATOR);
    expect(groupIn(afterRole, "role:moderators").members).toContain(user.id);
    // The caller's own role shows at once too.
    expect((await register(s, user)).is_moderator).toBe(true);

    expectSuccess(await s.api.delete(s.realm.admin, `/users/${user.id}`));
    const afterDeactivation = await register(s, viewer);
    expect(afterDeactivation.realm_users.some((u: any) => u.user_id === user.id)).toBe(false);
    expect(afterDeactivation.realm_non_active_users.some((u: any) => u.user_id === user.id)).toBe(true);
    expect(groupIn(afterDeactivation, "role:moderators").members).not.toContain(user.id);

    const field = expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "Register phone", field_type: 1 })).id as number;
    expectSuccess(await s.api.patch(viewer, "/users/me/profile_data", { data: [{ id: field, value: "555-0199" }] }));
    expect(userIn(await register(s, s.realm.member), viewer.id).profile_data[String(field)]).toEqual({ value: "555-0199", rendered_value: "<p>555-0199</p>" });
  });

  it("shows a presence report in the next register", async () => {
    const viewer = await makeUser();
    const reporter = await makeUser();
    expect((await register(s, viewer, slim)).presences).not.toHaveProperty(String(reporter.id));
    expectSuccess(await s.api.post(reporter, "/users/me/presence", { status: "active" }));
    expect((await register(s, viewer, slim)).presences).toHaveProperty(String(reporter.id));
  });

  it("shows subscriptions, unsubscriptions, a new channel and a renamed one in the next register", async () => {
    const viewer = await makeUser();
    const subscriber = await makeUser();
    expectSuccess(await s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "register cache channel" }] }));
    const before = await register(s, viewer, { include_subscribers: true });
    const channel = channelIn(before.never_subscribed, "register cache channel");
    expect(channel.subscribers).not.toContain(subscriber.id);
    const count = channelIn(before.streams, "register cache channel").subscriber_count as number;

    expectSuccess(await s.api.post(subscriber, "/users/me/subscriptions", { subscriptions: [{ name: "register cache channel" }] }));
    const after = await register(s, viewer, { include_subscribers: true });
    expect(channelIn(after.never_subscribed, "register cache channel").subscribers).toContain(subscriber.id);
    expect(channelIn(after.streams, "register cache channel").subscriber_count).toBe(count + 1);
    expect(channelIn((await register(s, subscriber)).subscriptions, "register cache channel")).toBeDefined();

    expectSuccess(await s.api.delete(subscriber, "/users/me/subscriptions", { subscriptions: ["register cache channel"] }));
    expect(channelIn((await register(s, viewer)).streams, "register cache channel").subscriber_count).toBe(count);
    expect(channelIn((await register(s, subscriber)).unsubscribed, "register cache channel")).toBeDefined();

    // A write of this process that publishes no event.
    const recipient = await s.db.selectFrom("recipients").select("id").where("type", "=", 2).where("type_id", "=", channel.stream_id).executeTakeFirstOrThrow();
    await s.db.insertInto("subscriptions").values({ realm_id: s.realm.realm.id, user_id: viewer.id, recipient_id: recipient.id }).execute();
    const afterInsert = await register(s, viewer);
    expect(channelIn(afterInsert.subscriptions, "register cache channel")).toBeDefined();
    expect(channelIn(afterInsert.streams, "register cache channel").subscriber_count).toBe(count + 1);

    expectSuccess(await s.api.patch(s.realm.admin, `/streams/${channel.stream_id}`, { new_name: "register cache renamed" }));
    expect(channelIn((await register(s, viewer)).streams, "register cache renamed")).toBeDefined();
  });

  it("shows the caller's own subscription settings, muting and unsubscribing in the next register (the rows are cached per user)", async () => {
    const caller = await makeUser();
    const sender = await makeUser();
    const channelName = "own rows channel";
    expectSuccess(await s.api.post(caller, "/users/me/subscriptions", { subscriptions: [{ name: channelName }] }));
    const own = (state: Record<string, any>) => channelIn(state.subscriptions, channelName);
    const first = await register(s, caller);
    const channelId = own(first).stream_id as number;
    expect(s.ctx.caches.subscriptionRows.get(s.realm.realm.id, caller.id, () => Promise.reject(new Error("not cached")))).not.toBeInstanceOf(Promise);
    expectSuccess(await s.api.post(sender, "/messages", { type: "stream", to: channelName, topic: "t", content: "unread for the caller" }));
    expect((await register(s, caller)).unread_msgs.count).toBe(first.unread_msgs.count + 1);

    const set = (property: string, value: unknown) => s.api.post(caller, "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: channelId, property, value }] });
    expectSuccess(await set("color", "#123456"));
    expect(own(await register(s, caller)).color).toBe("#123456");
    expectSuccess(await set("is_muted", true));
    const muted = await register(s, caller);
    expect(own(muted).is_muted).toBe(true);
    // A muted channel's messages leave the count.
    expect(muted.unread_msgs.count).toBe(first.unread_msgs.count);

    // Another node's write, which arrives as its event only.
    const recipient = await elsewhere().selectFrom("recipients").select("id").where("type", "=", 2).where("type_id", "=", channelId).executeTakeFirstOrThrow();
    await elsewhere().updateTable("subscriptions").set({ is_muted: 0 }).where("user_id", "=", caller.id).where("recipient_id", "=", recipient.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "subscription", op: "update", stream_id: channelId, property: "is_muted", value: false }, [caller.id]);
    const unmuted = await register(s, caller);
    expect(own(unmuted).is_muted).toBe(false);
    expect(unmuted.unread_msgs.count).toBe(first.unread_msgs.count + 1);

    expectSuccess(await s.api.delete(caller, "/users/me/subscriptions", { subscriptions: [channelName] }));
    const after = await register(s, caller);
    expect(own(after)).toBeUndefined();
    expect(channelIn(after.unsubscribed, channelName)).toBeDefined();
  });

  it("shows a new user group, its members and a new bot in the next register", async () => {
    const viewer = await makeUser(Role.ADMINISTRATOR);
    const member = await makeUser();
    await register(s, viewer);
    expectSuccess(await s.api.post(viewer, "/user_groups/create", { name: "register cache group", description: "d", members: [member.id] }));
    expect(groupIn(await register(s, viewer), "register cache group").members).toEqual([member.id]);
    const bot = await doCreateUser(s.ctx, s.realm.realm, { email: "regcache-bot@example.com", fullName: "Register Cache Bot", password: null, role: Role.MEMBER, isBot: true, botType: BotType.GENERIC, botOwnerId: viewer.id });
    expect((await register(s, viewer)).realm_bots.some((b: any) => b.user_id === bot.id)).toBe(true);
  });

  it("shows a user status, a custom emoji, a new profile field and a message in the next register", async () => {
    const viewer = await makeUser();
    const user = await makeUser();
    const before = await register(s, viewer);
    expect(before.user_status).not.toHaveProperty(String(user.id));
    expectSuccess(await s.api.post(user, "/users/me/status", { status_text: "in a meeting" }));
    expect((await register(s, viewer)).user_status[String(user.id)]).toEqual({ status_text: "in a meeting" });

    // A write of this process with no event, then another node's write with its event.
    const emoji = await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name: "register_cache", file_name: "1.png", author_id: user.id }).returning("id").executeTakeFirstOrThrow();
    expect((await register(s, viewer)).realm_emoji[String(emoji.id)]?.name).toBe("register_cache");
    await elsewhere().updateTable("realm_emoji").set({ deactivated: 1 }).where("id", "=", emoji.id).execute();
    s.ctx.events.publish(s.realm.realm.id, { type: "realm_emoji", op: "update", realm_emoji: {} }, [viewer.id]);
    expect((await register(s, viewer)).realm_emoji[String(emoji.id)]?.deactivated).toBe(true);

    const field = expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "Register field", field_type: 1 })).id as number;
    expect((await register(s, viewer)).custom_profile_fields.some((f: any) => f.id === field)).toBe(true);

    const sent = expectSuccess(await s.api.post(user, "/messages", { type: "direct", to: JSON.stringify([viewer.id]), content: "hello" })).id as number;
    expect((await register(s, viewer)).max_message_id).toBe(sent);
  });

  it("shows another node's changes, which arrive as events only", async () => {
    const viewer = await makeUser();
    const user = await makeUser();
    const realmId = s.realm.realm.id;
    await register(s, viewer);
    await elsewhere().updateTable("users").set({ full_name: "Renamed Elsewhere" }).where("id", "=", user.id).execute();
    s.ctx.events.publish(realmId, { type: "realm_user", op: "update", person: { user_id: user.id, full_name: "Renamed Elsewhere" } }, [viewer.id]);
    expect(userIn(await register(s, viewer), user.id).full_name).toBe("Renamed Elsewhere");

    const general = channelIn((await register(s, viewer)).subscriptions, "general");
    const recipient = await elsewhere().selectFrom("recipients").select("id").where("type", "=", 2).where("type_id", "=", general.stream_id).executeTakeFirstOrThrow();
    await elsewhere().deleteFrom("subscriptions").where("user_id", "=", user.id).where("recipient_id", "=", recipient.id).execute();
    s.ctx.events.publish(realmId, { type: "subscription", op: "peer_remove", stream_ids: [general.stream_id], user_ids: [user.id] }, [viewer.id]);
    expect(channelIn((await register(s, viewer)).subscriptions, "general").subscriber_count).toBe(general.subscriber_count - 1);

    const group = await elsewhere().selectFrom("user_groups").select("id").where("realm_id", "=", realmId).where("name", "=", "role:members").executeTakeFirstOrThrow();
    await elsewhere().deleteFrom("user_group_members").where("group_id", "=", group.id).where("user_id", "=", user.id).execute();
    s.ctx.events.publish(realmId, { type: "user_group", op: "remove_members", group_id: group.id, user_ids: [user.id] }, [viewer.id]);
    expect(groupIn(await register(s, viewer), "role:members").members).not.toContain(user.id);
  });

  it("answers what cold caches answer, for every kind of caller and option", async () => {
    const { owner, admin, moderator, member, guest, bot } = s.realm;
    const options: Params[] = [
      {},
      { client_hashavatar: false },
      { include_subscribers: true, slim_presence: true },
      { client_capabilities: JSON.stringify({ notification_settings_null: true, include_deactivated_groups: true, user_list_incomplete: true }) },
    ];
    for (const caller of [owner, admin, moderator, member, guest, bot]) {
      for (const params of options) {
        await register(s, caller, params);
        const warm = await register(s, caller, params);
        s.ctx.caches.flushAll();
        const cold = await register(s, caller, params);
        expect(withoutVolatile(warm), `${caller.delivery_email} ${JSON.stringify(params)}`).toEqual(withoutVolatile(cold));
      }
    }
  });

  it("is written as parts with the right length, and reports ignored parameters after them", async () => {
    const res = await s.api.post(s.realm.member, "/register", { no_such_parameter: 1 });
    expect(Number(res.headers["content-length"])).toBe(res.rawPayload.length);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body.result).toBe("success");
    expect(Object.keys(body).slice(-1)).toEqual(["ignored_parameters_unsupported"]);
    expect(body.ignored_parameters_unsupported).toEqual(["no_such_parameter"]);
  });

  it("places unread messages of recipients created after the recipients were cached (a new user, a new group)", async () => {
    const reader = await makeUser();
    const before = await register(s, reader);
    expect(before.unread_msgs.pms).toEqual([]);
    // New recipients: a new user's personal one, a group conversation's.
    const newcomer = await makeUser();
    const third = await makeUser();
    const dm = expectSuccess(await s.api.post(newcomer, "/messages", { type: "direct", to: JSON.stringify([reader.id]), content: "hello" })).id as number;
    const group = expectSuccess(await s.api.post(newcomer, "/messages", { type: "direct", to: JSON.stringify([reader.id, third.id]), content: "hi all" })).id as number;
    const after = await register(s, reader);
    expect(after.unread_msgs.pms).toEqual([{ other_user_id: newcomer.id, sender_id: newcomer.id, unread_message_ids: [dm] }]);
    const members = [reader.id, newcomer.id, third.id].sort((a, b) => a - b).join(",");
    expect(after.unread_msgs.huddles).toEqual([{ user_ids_string: members, unread_message_ids: [group] }]);
    s.ctx.caches.flushAll();
    expect(withoutVolatile(await register(s, reader))).toEqual(withoutVolatile(after));
  });

  it("gives the same user records as GET /users with profile data", async () => {
    const state = await register(s, s.realm.member);
    const members = expectSuccess(await s.api.get(s.realm.member, "/users", { include_custom_profile_fields: true })).members as unknown[];
    expect([...state.realm_users, ...state.realm_non_active_users].sort((a: any, b: any) => a.user_id - b.user_id)).toEqual(members);
  });
});

describe("events arriving while the state is read", () => {
  /** Registers `caller`, publishing `events` right after their queue is allocated (before the state is read). */
  async function registerWithPending(caller: User, params: Params, events: Array<Record<string, any>>): Promise<Record<string, any>> {
    const queues = s.ctx.eventQueues;
    const allocate = queues.allocate;
    queues.allocate = function (this: typeof queues, ...args: Parameters<typeof allocate>) {
      queues.allocate = allocate;
      const queue = allocate.apply(this, args);
      for (const event of events) s.ctx.events.publish(s.realm.realm.id, event as never, [caller.id]);
      return queue;
    } as typeof allocate;
    try {
      return await register(s, caller, params);
    } finally {
      queues.allocate = allocate;
    }
  }

  it("are applied to the serialized users, presence, channels and groups", async () => {
    const caller = await makeUser();
    const other = await makeUser();
    const warm = await register(s, caller, slim);
    const general = channelIn(warm.streams, "general");
    const members = groupIn(warm, "role:members");
    const state = await registerWithPending(caller, slim, [
      { type: "realm_user", op: "update", person: { user_id: other.id, full_name: "Named While Registering" } },
      { type: "presence", user_id: other.id, server_timestamp: 1, presence: { website: { client: "website", status: "active", timestamp: 1234, pushable: false } } },
      { type: "stream", op: "update", stream_id: general.stream_id, property: "description", value: "changed while registering", rendered_description: "<p>changed while registering</p>" },
      { type: "user_group", op: "update", group_id: members.id, data: { description: "changed while registering" } },
    ]);
    expect(state.last_event_id).toBe(3);
    expect(userIn(state, other.id).full_name).toBe("Named While Registering");
    expect(state.presences[String(other.id)].active_timestamp).toBe(1234);
    expect(channelIn(state.streams, "general").description).toBe("changed while registering");
    expect(channelIn(state.subscriptions, "general").description).toBe("changed while registering");
    expect(groupIn(state, "role:members").description).toBe("changed while registering");
    // The cached parts themselves are untouched.
    const next = await register(s, caller, slim);
    expect(userIn(next, other.id).full_name).toBe(other.full_name);
    expect(channelIn(next.streams, "general").description).toBe(general.description);
  });

  it("leave the serialized parts alone when they do not read them", async () => {
    const caller = await makeUser();
    const state = await registerWithPending(caller, slim, [{ type: "typing", op: "start", sender: { user_id: caller.id, email: "x" }, recipients: [] }]);
    expect(state.last_event_id).toBe(0);
    expect(withoutVolatile(state)).toEqual(withoutVolatile(await register(s, caller, slim)));
  });
});
