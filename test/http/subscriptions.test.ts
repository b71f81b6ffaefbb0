import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { Channel } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let pub: Channel;
let priv: Channel;
let otherRealm: Channel;
const events: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
  pub = await createChannel(s, { name: "design", subscribers: [s.realm.member] });
  priv = await createChannel(s, { name: "secret", invite_only: true, subscribers: [s.realm.member] });
  otherRealm = await createChannel(s, { name: "elsewhere", subscribers: [s.other.member] });
});
afterAll(() => s.close());

async function subscriberIds(channelId: number): Promise<number[]> {
  const rows = await s.db
    .selectFrom("subscriptions")
    .innerJoin("channels", "channels.recipient_id", "subscriptions.recipient_id")
    .select("subscriptions.user_id")
    .where("channels.id", "=", channelId)
    .where("subscriptions.active", "=", 1)
    .execute();
  return rows.map((r) => r.user_id).sort((a, b) => a - b);
}
const channelCount = async () => (await s.db.selectFrom("channels").select("id").execute()).length;
const subCount = async () => (await s.db.selectFrom("subscriptions").select("id").where("active", "=", 1).execute()).length;
const byName = (name: string) => s.db.selectFrom("channels").selectAll().where("realm_id", "=", s.realm.realm.id).where("name", "=", name).executeTakeFirst();

describe("GET /users/me/subscriptions", () => {
  it("lists the caller's subscriptions with personal settings", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/users/me/subscriptions"));
    expect(body.subscriptions.map((x: any) => x.name)).toEqual(["design", "general", "secret"]);
    const design = body.subscriptions.find((x: any) => x.name === "design");
    expect(design).toMatchObject({
      stream_id: pub.id,
      is_muted: false,
      in_home_view: true,
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
      invite_only: false,
    });
    expect(design.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(design.subscribers).toBeUndefined();
  });

  it("includes subscribers on request", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/users/me/subscriptions", { include_subscribers: true }));
    expect(body.subscriptions.find((x: any) => x.name === "secret").subscribers).toEqual([s.realm.member.id]);
  });

  it("needs credentials", async () => {
    expectError(await s.api.get(null, "/users/me/subscriptions"), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("POST /users/me/subscriptions", () => {
  it("creates a channel and subscribes the caller, with events", async () => {
    events.length = 0;
    const body = expectSuccess(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: " fresh ", description: "A\nnew one" }] }));
    expect(body).toMatchObject({ subscribed: { [String(s.realm.other.id)]: ["fresh"] }, already_subscribed: {} });
    expect(body.unauthorized).toBeUndefined();
    const row = (await byName("fresh"))!;
    expect(row).toMatchObject({ description: "A new one", invite_only: 0, creator_id: s.realm.other.id });
    expect(row.recipient_id).not.toBeNull();
    expect(await subscriberIds(row.id)).toEqual([s.realm.other.id]);
    const create = events.find((e) => e.event.type === "stream" && e.event.op === "create")!;
    expect((create.event.streams as any[])[0]).toMatchObject({ stream_id: row.id, name: "fresh" });
    expect(create.userIds).toContain(s.realm.member.id);
    expect(create.userIds).not.toContain(s.realm.guest.id);
    const add = events.find((e) => e.event.type === "subscription" && e.event.op === "add")!;
    expect(add.userIds).toEqual([s.realm.other.id]);
    expect((add.event.subscriptions as any[])[0]).toMatchObject({ name: "fresh", subscribers: [s.realm.other.id] });
  });

  it("subscribes to an existing public channel and reports already-subscribed ones", async () => {
    events.length = 0;
    const body = expectSuccess(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: "Design" }, { name: "general" }] }));
    expect(body).toEqual({
      result: "success",
      msg: "",
      subscribed: { [String(s.realm.other.id)]: ["design"] },
      already_subscribed: { [String(s.realm.other.id)]: ["general"] },
    });
    expect(await subscriberIds(pub.id)).toEqual([s.realm.member.id, s.realm.other.id].sort((a, b) => a - b));
    const peer = events.find((e) => e.event.op === "peer_add")!;
    expect(peer.event).toEqual({ type: "subscription", op: "peer_add", stream_ids: [pub.id], user_ids: [s.realm.other.id] });
    expect(peer.userIds).toContain(s.realm.member.id);
    expect(peer.userIds).not.toContain(s.realm.other.id);
    expect(peer.userIds).not.toContain(s.realm.guest.id);
  });

  it("creates private channels whose events reach only subscribers and administrators", async () => {
    events.length = 0;
    expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "hidden" }], invite_only: true }));
    const row = (await byName("hidden"))!;
    expect(row).toMatchObject({ invite_only: 1, history_public_to_subscribers: 0 });
    const create = events.find((e) => e.event.type === "stream" && e.event.op === "create")!;
    expect(create.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id].sort((a, b) => a - b));
  });

  it("subscribes other users by id or email when allowed", async () => {
    events.length = 0;
    const body = expectSuccess(
      await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [s.realm.other.id, s.realm.guest.id] }),
    );
    expect(body.subscribed).toEqual({ [String(s.realm.other.id)]: ["secret"], [String(s.realm.guest.id)]: ["secret"] });
    // The private channel was invisible to them: a stream create event comes first.
    const creates = events.filter((e) => e.event.type === "stream" && e.event.op === "create");
    expect(creates.map((e) => e.userIds).flat().sort((a, b) => a - b)).toEqual([s.realm.other.id, s.realm.guest.id].sort((a, b) => a - b));
    const firstAdd = events.findIndex((e) => e.event.op === "add");
    expect(events.findIndex((e) => e.event.op === "create")).toBeLessThan(firstAdd);
    const byEmail = expectSuccess(
      await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [s.realm.moderator.delivery_email] }),
    );
    expect(byEmail.subscribed).toEqual({ [String(s.realm.moderator.id)]: ["design"] });
  });

  it("rejects channels the caller cannot see, unless authorization errors are not fatal", async () => {
    const c = await createChannel(s, { name: "vault", invite_only: true, subscribers: [s.realm.admin] });
    const before = await subCount();
    expectError(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: "vault" }] }), "Unable to access channel (vault).");
    expect(await subCount()).toBe(before);
    const body = expectSuccess(
      await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: "vault" }, { name: "general" }], authorization_errors_fatal: false }),
    );
    expect(body).toMatchObject({ subscribed: {}, already_subscribed: { [String(s.realm.other.id)]: ["general"] }, unauthorized: ["vault"] });
    expect(await subscriberIds(c.id)).toEqual([s.realm.admin.id]);
    // Administrators see a private channel's metadata but may not join it (content access, as upstream).
    expectError(await s.api.post(s.realm.owner, "/users/me/subscriptions", { subscriptions: [{ name: "vault" }] }), "Unable to access channel (vault).");
    expect(await subscriberIds(c.id)).toEqual([s.realm.admin.id]);
  });

  it("never reaches another organization's channel", async () => {
    const before = await channelCount();
    // Same name in another realm: this creates a new channel here, it does not join theirs.
    expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "elsewhere" }] }));
    expect(await channelCount()).toBe(before + 1);
    expect(await subscriberIds(otherRealm.id)).toEqual([s.other.member.id]);
    const res = await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [s.other.member.id] });
    expectError(res, `User not authorized to execute queries on behalf of '${s.other.member.id}'`, { code: "UNAUTHORIZED_PRINCIPAL", status: 403 });
  });

  it("checks permissions by role", async () => {
    const before = { channels: await channelCount(), subs: await subCount() };
    expectError(await s.api.post(s.realm.guest, "/users/me/subscriptions", { subscriptions: [{ name: "design" }] }), "Not allowed for guest users");
    // Only owners may create web-public channels; the realm must allow public access.
    expectError(await s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "webby" }], is_web_public: true }), "Web-public channels are not enabled.");
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
    expectError(await s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "webby" }], is_web_public: true }), "Insufficient permission");
    // Default channels: administrators only, and never private.
    expectError(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "dflt" }], is_default_stream: true }), "Insufficient permission");
    expectError(
      await s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "dflt" }], is_default_stream: true, invite_only: true }),
      "A default channel cannot be private.",
    );
    // Subscribing others needs the realm's can_add_subscribers_group (here: administrators).
    const admins = (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow()).id;
    const members = s.realm.realm.can_add_subscribers_group_id;
    await s.db.updateTable("realms").set({ can_add_subscribers_group_id: admins }).where("id", "=", s.realm.realm.id).execute();
    expectError(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [s.realm.bot.id] }), "Insufficient permission");
    await s.db.updateTable("realms").set({ can_add_subscribers_group_id: members }).where("id", "=", s.realm.realm.id).execute();
    expect({ channels: await channelCount(), subs: await subCount() }).toEqual(before);
    expectSuccess(await s.api.post(s.realm.owner, "/users/me/subscriptions", { subscriptions: [{ name: "webby" }], is_web_public: true }));
    expect((await byName("webby"))!.is_web_public).toBe(1);
    expectSuccess(await s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "dflt" }], is_default_stream: true }));
    const d = (await byName("dflt"))!;
    expect(await s.db.selectFrom("default_channels").selectAll().where("channel_id", "=", d.id).execute()).toHaveLength(1);
  });

  it("validates names and parameters without changing anything", async () => {
    const before = { channels: await channelCount(), subs: await subCount() };
    const post = (params: Record<string, unknown>) => s.api.post(s.realm.member, "/users/me/subscriptions", params);
    expectError(await post({}), "Missing 'subscriptions' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ subscriptions: "nope" }), "subscriptions is not valid JSON");
    expectError(await post({ subscriptions: [{ name: "" }] }), "Channel name can't be empty.");
    expectError(await post({ subscriptions: [{ name: "n".repeat(61) }] }), "Channel name too long (limit: 60 characters).");
    expectError(await post({ subscriptions: [{ name: "ok", description: "d".repeat(1025) }] }), 'subscriptions[0]["description"] is too long (limit: 1024 characters)');
    expectError(await post({ subscriptions: [{ name: "ok" }], principals: [999999] }), "User not authorized to execute queries on behalf of '999999'", {
      code: "UNAUTHORIZED_PRINCIPAL",
      status: 403,
    });
    expectError(await post({ subscriptions: [{ name: "ok" }], principals: ["nobody@example.com"] }), "User not authorized to execute queries on behalf of 'nobody@example.com'", {
      code: "UNAUTHORIZED_PRINCIPAL",
      status: 403,
    });
    expect({ channels: await channelCount(), subs: await subCount() }).toEqual(before);
  });
});

describe("DELETE /users/me/subscriptions", () => {
  it("unsubscribes the caller, reporting what was not subscribed", async () => {
    const c = await createChannel(s, { name: "leaving", subscribers: [s.realm.member, s.realm.other] });
    events.length = 0;
    const body = expectSuccess(await s.api.delete(s.realm.member, "/users/me/subscriptions", { subscriptions: ["leaving", "fresh"] }));
    expect(body).toEqual({ result: "success", msg: "", removed: ["leaving"], not_removed: ["fresh"] });
    expect(await subscriberIds(c.id)).toEqual([s.realm.other.id]);
    const remove = events.find((e) => e.event.op === "remove")!;
    expect(remove.event).toEqual({ type: "subscription", op: "remove", subscriptions: [{ name: "leaving", stream_id: c.id }] });
    expect(remove.userIds).toEqual([s.realm.member.id]);
    const peer = events.find((e) => e.event.op === "peer_remove")!;
    expect(peer.event).toEqual({ type: "subscription", op: "peer_remove", stream_ids: [c.id], user_ids: [s.realm.member.id] });
    expect(peer.userIds).toContain(s.realm.other.id);
  });

  it("tells a user leaving a private channel that it is gone", async () => {
    const c = await createChannel(s, { name: "private-exit", invite_only: true, subscribers: [s.realm.other, s.realm.member] });
    events.length = 0;
    expectSuccess(await s.api.delete(s.realm.other, "/users/me/subscriptions", { subscriptions: ["private-exit"] }));
    const gone = events.find((e) => e.event.type === "stream" && e.event.op === "delete")!;
    expect(gone.event.stream_ids).toEqual([c.id]);
    expect(gone.userIds).toEqual([s.realm.other.id]);
    const peer = events.find((e) => e.event.op === "peer_remove")!;
    expect(peer.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id].sort((a, b) => a - b));
  });

  it("removing others needs administration", async () => {
    const c = await createChannel(s, { name: "kick", subscribers: [s.realm.member, s.realm.other] });
    expectError(await s.api.delete(s.realm.member, "/users/me/subscriptions", { subscriptions: ["kick"], principals: [s.realm.other.id] }), "Insufficient permission");
    expect(await subscriberIds(c.id)).toEqual([s.realm.member.id, s.realm.other.id].sort((a, b) => a - b));
    const body = expectSuccess(await s.api.delete(s.realm.admin, "/users/me/subscriptions", { subscriptions: ["kick"], principals: [s.realm.other.id] }));
    expect(body.removed).toEqual(["kick"]);
    expect(await subscriberIds(c.id)).toEqual([s.realm.member.id]);
  });

  it("rejects unknown channels and other organizations' channels", async () => {
    const before = await subCount();
    expectError(await s.api.delete(s.realm.member, "/users/me/subscriptions", { subscriptions: ["nope", "design"] }), "Channel(s) (nope) do not exist");
    expectError(await s.api.delete(s.other.member, "/users/me/subscriptions", { subscriptions: ["secret"] }), "Channel(s) (secret) do not exist");
    expectError(await s.api.delete(s.realm.member, "/users/me/subscriptions", {}), "Missing 'subscriptions' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expect(await subCount()).toBe(before);
  });
});

describe("GET /streams/{stream_id}/members", () => {
  it("lists subscribers to those who may see the channel", async () => {
    expect(expectSuccess(await s.api.get(s.realm.member, `/streams/${priv.id}/members`)).subscribers).toEqual(await subscriberIds(priv.id));
    expect(expectSuccess(await s.api.get(s.realm.admin, `/streams/${priv.id}/members`)).subscribers).toEqual(await subscriberIds(priv.id));
    expectError(await s.api.get(s.realm.moderator, `/streams/${priv.id}/members`), "Invalid channel ID");
    expectError(await s.api.get(s.realm.member, `/streams/${otherRealm.id}/members`), "Invalid channel ID");
    expectError(await s.api.get(null, `/streams/${pub.id}/members`), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("peer events never reach the altered users", () => {
  it("peer_add and peer_remove skip the subscriber, private channels reach subscribers and admins", async () => {
    const c = await createChannel(s, { name: "peer-private", invite_only: true, subscribers: [s.realm.member] });
    events.length = 0;
    expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "peer-private" }], principals: [s.realm.other.id, s.realm.guest.id] }));
    const add = events.filter((e) => e.event.op === "peer_add");
    expect(add).toHaveLength(1);
    expect(add[0]!.event).toEqual({ type: "subscription", op: "peer_add", stream_ids: [c.id], user_ids: [s.realm.other.id, s.realm.guest.id].sort((a, b) => a - b) });
    expect(add[0]!.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id].sort((a, b) => a - b));
    events.length = 0;
    expectSuccess(await s.api.delete(s.realm.guest, "/users/me/subscriptions", { subscriptions: ["peer-private"] }));
    const remove = events.filter((e) => e.event.op === "peer_remove");
    expect(remove).toHaveLength(1);
    expect(remove[0]!.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id, s.realm.other.id].sort((a, b) => a - b));
  });

  it("a public channel with a guest subscriber reaches non-guests and that guest, not the subscriber", async () => {
    const c = await createChannel(s, { name: "peer-public-guest", subscribers: [s.realm.guest] });
    events.length = 0;
    expectSuccess(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: "peer-public-guest" }] }));
    const add = events.filter((e) => e.event.op === "peer_add");
    expect(add).toHaveLength(1);
    expect(add[0]!.event.stream_ids).toEqual([c.id]);
    expect(add[0]!.userIds).toContain(s.realm.guest.id);
    expect(add[0]!.userIds).not.toContain(s.realm.other.id);
  });
});
