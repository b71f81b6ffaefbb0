import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { Channel } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let pub: Channel;
let priv: Channel;
let web: Channel;
let otherRealm: Channel;
const events: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
  pub = await createChannel(s, { name: "design", description: "Design *talk*", subscribers: [s.realm.member] });
  priv = await createChannel(s, { name: "secret", invite_only: true, subscribers: [s.realm.member, s.realm.guest] });
  web = await createChannel(s, { name: "announce", is_web_public: true, subscribers: [] });
  otherRealm = await createChannel(s, { name: "elsewhere", subscribers: [s.other.member] });
});
afterAll(() => s.close());

const channelRow = (id: number) => s.db.selectFrom("channels").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const names = (body: Record<string, any>) => (body.streams as Array<{ name: string }>).map((c) => c.name);

describe("createChannel helper and realm defaults", () => {
  it("creates the channel, its recipient and the subscriptions", async () => {
    const rec = await s.db.selectFrom("recipients").selectAll().where("id", "=", priv.recipient_id!).executeTakeFirstOrThrow();
    expect(rec).toMatchObject({ type: 2, type_id: priv.id, realm_id: s.realm.realm.id });
    const subs = await s.db.selectFrom("subscriptions").select("user_id").where("recipient_id", "=", priv.recipient_id!).execute();
    expect(subs.map((r) => r.user_id).sort((a, b) => a - b)).toEqual([s.realm.member.id, s.realm.guest.id].sort((a, b) => a - b));
  });

  it("gives each new realm a default 'general' channel every human joins", async () => {
    const general = await s.db.selectFrom("channels").selectAll().where("realm_id", "=", s.realm.realm.id).where("name", "=", "general").executeTakeFirstOrThrow();
    expect(general.invite_only).toBe(0);
    const def = await s.db.selectFrom("default_channels").selectAll().where("channel_id", "=", general.id).execute();
    expect(def).toHaveLength(1);
    const subs = await s.db.selectFrom("subscriptions").select("user_id").where("recipient_id", "=", general.recipient_id!).execute();
    const { owner, admin, moderator, member, other, guest } = s.realm;
    expect(subs.map((r) => r.user_id).sort((a, b) => a - b)).toEqual([owner, admin, moderator, member, other, guest].map((u) => u.id).sort((a, b) => a - b));
  });
});

describe("GET /streams", () => {
  it("lists public and subscribed channels, sorted by name, with upstream fields", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/streams"));
    expect(names(body)).toEqual(["announce", "design", "general", "secret"]);
    const design = body.streams.find((c: any) => c.name === "design");
    expect(design).toMatchObject({
      stream_id: pub.id,
      name: "design",
      description: "Design *talk*",
      invite_only: false,
      is_web_public: false,
      history_public_to_subscribers: true,
      creator_id: s.realm.owner.id,
      first_message_id: null,
      message_retention_days: null,
      stream_post_policy: 1,
      is_announcement_only: false,
      is_archived: false,
      stream_weekly_traffic: null,
      subscriber_count: 1,
    });
    expect(design.rendered_description).toBe("<p>Design <em>talk</em></p>");
    expect(typeof design.date_created).toBe("number");
    expect(typeof design.can_remove_subscribers_group).toBe("number");
  });

  it("hides private channels from non-subscribers", async () => {
    const body = expectSuccess(await s.api.get(s.realm.other, "/streams"));
    expect(names(body)).toEqual(["announce", "design", "general"]);
  });

  it("shows guests only their subscriptions and, on request, web-public channels", async () => {
    expect(names(expectSuccess(await s.api.get(s.realm.guest, "/streams")))).toEqual(["general", "secret"]);
    const body = expectSuccess(await s.api.get(s.realm.guest, "/streams", { include_web_public: true }));
    expect(names(body)).toEqual(["announce", "general", "secret"]);
  });

  it("honours include_public / include_subscribed", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/streams", { include_public: false }));
    expect(names(body)).toEqual(["design", "general", "secret"]);
    const none = expectSuccess(await s.api.get(s.realm.member, "/streams", { include_public: false, include_subscribed: false }));
    expect(none.streams).toEqual([]);
  });

  it("include_all is for administrators only", async () => {
    const body = expectSuccess(await s.api.get(s.realm.admin, "/streams", { include_all: true }));
    expect(names(body)).toEqual(["announce", "design", "general", "secret"]);
    expectError(await s.api.get(s.realm.member, "/streams", { include_all: true }), "User not authorized for this query");
    expectError(await s.api.get(s.realm.moderator, "/streams", { include_all: true }), "User not authorized for this query");
  });

  it("include_default marks default channels", async () => {
    const body = expectSuccess(await s.api.get(s.realm.member, "/streams", { include_default: true }));
    expect(body.streams.find((c: any) => c.name === "general").is_default).toBe(true);
    expect(body.streams.find((c: any) => c.name === "design").is_default).toBe(false);
  });

  it("never lists another organization's channels", async () => {
    const body = expectSuccess(await s.api.get(s.realm.admin, "/streams", { include_all: true }));
    expect(names(body)).not.toContain("elsewhere");
    expect(names(expectSuccess(await s.api.get(s.other.member, "/streams")))).toEqual(["elsewhere", "general"]);
  });

  it("validates parameters and requires credentials", async () => {
    expectError(await s.api.get(s.realm.member, "/streams", { include_public: "yes" }), "include_public is not valid JSON");
    expectError(await s.api.get(null, "/streams"), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("GET /streams/{stream_id}", () => {
  it("returns the channel", async () => {
    const body = expectSuccess(await s.api.get(s.realm.other, `/streams/${pub.id}`));
    expect(body.stream).toMatchObject({ stream_id: pub.id, name: "design", subscriber_count: 1 });
  });

  it("lets subscribers and administrators see private channels", async () => {
    expect(expectSuccess(await s.api.get(s.realm.guest, `/streams/${priv.id}`)).stream.name).toBe("secret");
    expect(expectSuccess(await s.api.get(s.realm.admin, `/streams/${priv.id}`)).stream.name).toBe("secret");
    expectError(await s.api.get(s.realm.other, `/streams/${priv.id}`), "Invalid channel ID");
    expectError(await s.api.get(s.realm.moderator, `/streams/${priv.id}`), "Invalid channel ID");
  });

  it("hides public channels from guests but not web-public ones", async () => {
    expectError(await s.api.get(s.realm.guest, `/streams/${pub.id}`), "Invalid channel ID");
    expect(expectSuccess(await s.api.get(s.realm.guest, `/streams/${web.id}`)).stream.is_web_public).toBe(true);
  });

  it("treats missing and other-realm channels alike", async () => {
    expectError(await s.api.get(s.realm.owner, "/streams/999999"), "Invalid channel ID");
    expectError(await s.api.get(s.realm.owner, `/streams/${otherRealm.id}`), "Invalid channel ID");
    expectError(await s.api.get(null, `/streams/${pub.id}`), "Not logged in: API authentication or user session required" , { status: 401, code: "UNAUTHORIZED" });
  });
});

describe("GET /get_stream_id", () => {
  it("finds a channel by name, case-insensitively", async () => {
    expect(expectSuccess(await s.api.get(s.realm.member, "/get_stream_id", { stream: "DESIGN" })).stream_id).toBe(pub.id);
    expect(expectSuccess(await s.api.get(s.realm.guest, "/get_stream_id", { stream: "secret" })).stream_id).toBe(priv.id);
  });

  it("reports unknown or inaccessible names with upstream's message", async () => {
    expectError(await s.api.get(s.realm.member, "/get_stream_id", { stream: "nope" }), "Invalid channel name 'nope'");
    expectError(await s.api.get(s.realm.other, "/get_stream_id", { stream: "secret" }), "Invalid channel name 'secret'");
    expectError(await s.api.get(s.realm.guest, "/get_stream_id", { stream: "design" }), "Invalid channel name 'design'");
    expectError(await s.api.get(s.realm.member, "/get_stream_id", { stream: "elsewhere" }), "Invalid channel name 'elsewhere'");
    expectError(await s.api.get(s.realm.member, "/get_stream_id"), "Missing 'stream' argument", { code: "REQUEST_VARIABLE_MISSING" });
  });
});

describe("PATCH /streams/{stream_id}", () => {
  it("renames and re-describes a channel, with events to its viewers", async () => {
    const c = await createChannel(s, { name: "renameme", subscribers: [s.realm.member] });
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { new_name: " renamed ", description: "new\ndesc" }));
    const row = await channelRow(c.id);
    expect(row).toMatchObject({ name: "renamed", description: "new desc" });
    const nameEvent = events.find((e) => e.event.property === "name")!;
    expect(nameEvent.event).toEqual({ type: "stream", op: "update", property: "name", value: "renamed", name: "renameme", stream_id: c.id });
    expect(nameEvent.userIds).toContain(s.realm.other.id);
    expect(nameEvent.userIds).not.toContain(s.realm.guest.id);
    const descEvent = events.find((e) => e.event.property === "description")!;
    expect(descEvent.event).toMatchObject({ value: "new desc", rendered_description: row.rendered_description, name: "renamed" });
  });

  it("makes a channel private and back, private events only to subscribers and admins", async () => {
    const c = await createChannel(s, { name: "flip", subscribers: [s.realm.member, s.realm.owner] });
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.owner, `/streams/${c.id}`, { is_private: true, history_public_to_subscribers: false }));
    expect(await channelRow(c.id)).toMatchObject({ invite_only: 1, history_public_to_subscribers: 0 });
    const ev = events.find((e) => e.event.property === "invite_only")!;
    expect(ev.event).toMatchObject({ value: true, history_public_to_subscribers: false, is_web_public: false, stream_id: c.id });
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.owner, `/streams/${c.id}`, { description: "hush" }));
    const desc = events.find((e) => e.event.property === "description")!;
    expect(desc.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id].sort((a, b) => a - b));
    expectSuccess(await s.api.patch(s.realm.owner, `/streams/${c.id}`, { is_private: false }));
    expect(await channelRow(c.id)).toMatchObject({ invite_only: 0, history_public_to_subscribers: 1 });
  });

  it("rejects non-administrators and invisible channels", async () => {
    const before = await channelRow(pub.id);
    expectError(await s.api.patch(s.realm.member, `/streams/${pub.id}`, { description: "x" }), "You do not have permission to administer this channel.");
    expectError(await s.api.patch(s.realm.moderator, `/streams/${pub.id}`, { description: "x" }), "You do not have permission to administer this channel.");
    expectError(await s.api.patch(s.realm.other, `/streams/${priv.id}`, { description: "x" }), "Invalid channel ID");
    expectError(await s.api.patch(s.realm.guest, `/streams/${pub.id}`, { description: "x" }), "Invalid channel ID");
    expectError(await s.api.patch(s.realm.admin, `/streams/${otherRealm.id}`, { description: "x" }), "Invalid channel ID");
    expectError(await s.api.patch(s.realm.admin, "/streams/999999", { description: "x" }), "Invalid channel ID");
    expect(await channelRow(pub.id)).toEqual(before);
  });

  it("validates names and descriptions", async () => {
    const before = await channelRow(pub.id);
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { new_name: "design" }), "Channel already has that name.");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { new_name: "General" }), "Channel 'General' already exists");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { new_name: "   " }), "Channel name can't be empty.");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { new_name: "x".repeat(61) }), "Channel name too long (limit: 60 characters).");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { new_name: "a\u0001b" }), "Invalid character in channel name, at position 2.");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { description: "d".repeat(1025) }), "description is too long (limit: 1024 characters)");
    expectError(await s.api.patch(s.realm.admin, `/streams/${pub.id}`, { is_private: "maybe" }), "is_private is not valid JSON");
    expect(await channelRow(pub.id)).toEqual(before);
  });

  it("checks that the permission settings are coherent", async () => {
    const general = (await s.db.selectFrom("channels").selectAll().where("realm_id", "=", s.realm.realm.id).where("name", "=", "general").executeTakeFirstOrThrow());
    const before = await channelRow(pub.id);
    expectError(await s.api.patch(s.realm.owner, `/streams/${pub.id}`, { is_private: true, is_web_public: true }), "Invalid parameters");
    expectError(await s.api.patch(s.realm.owner, `/streams/${pub.id}`, { history_public_to_subscribers: false }), "Invalid parameters");
    expectError(await s.api.patch(s.realm.owner, `/streams/${general.id}`, { is_private: true }), "A default channel cannot be private.");
    expectError(await s.api.patch(s.realm.owner, `/streams/${pub.id}`, { is_private: true, is_default_stream: true }), "A default channel cannot be private.");
    // Administrators see private channels' metadata but need content access to change privacy.
    expectError(await s.api.patch(s.realm.admin, `/streams/${priv.id}`, { is_private: false }), "Channel content access is required.");
    expect(await channelRow(pub.id)).toEqual(before);
    expect(await channelRow(priv.id)).toMatchObject({ invite_only: 1 });
  });

  it("adds and removes default channels, announcing the list", async () => {
    const c = await createChannel(s, { name: "defaulted", subscribers: [] });
    events.length = 0;
    expectSuccess(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { is_default_stream: true }));
    expect(await s.db.selectFrom("default_channels").selectAll().where("channel_id", "=", c.id).execute()).toHaveLength(1);
    const ev = events.find((e) => e.event.type === "default_streams")!;
    expect((ev.event.default_streams as any[]).map((d) => d.name).sort()).toEqual(["defaulted", "general"]);
    expect(ev.userIds).not.toContain(s.realm.guest.id);
    expectSuccess(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { is_default_stream: false }));
    expect(await s.db.selectFrom("default_channels").selectAll().where("channel_id", "=", c.id).execute()).toHaveLength(0);
  });

  it("web-public channels need the public-access option and the owners' permission", async () => {
    const c = await createChannel(s, { name: "towards-web", subscribers: [] });
    await s.db.updateTable("realms").set({ enable_spectator_access: 0 }).where("id", "=", s.realm.realm.id).execute();
    expectError(await s.api.patch(s.realm.owner, `/streams/${c.id}`, { is_web_public: true }), "Web-public channels are not enabled.");
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", s.realm.realm.id).execute();
    expectError(await s.api.patch(s.realm.admin, `/streams/${c.id}`, { is_web_public: true }), "Insufficient permission");
    expect((await channelRow(c.id)).is_web_public).toBe(0);
    expectSuccess(await s.api.patch(s.realm.owner, `/streams/${c.id}`, { is_web_public: true }));
    expect((await channelRow(c.id)).is_web_public).toBe(1);
  });
});

describe("DELETE /streams/{stream_id}", () => {
  it("archives a channel for administrators, with a delete event", async () => {
    const c = await createChannel(s, { name: "doomed", invite_only: true, subscribers: [s.realm.member] });
    events.length = 0;
    expectError(await s.api.delete(s.realm.member, `/streams/${c.id}`), "You do not have permission to administer this channel.");
    expectError(await s.api.delete(s.realm.other, `/streams/${c.id}`), "Invalid channel ID");
    expect((await channelRow(c.id)).deactivated).toBe(0);
    expectSuccess(await s.api.delete(s.realm.admin, `/streams/${c.id}`));
    expect((await channelRow(c.id)).deactivated).toBe(1);
    const ev = events.find((e) => e.event.type === "stream" && e.event.op === "delete")!;
    expect(ev.event.stream_ids).toEqual([c.id]);
    expect(ev.userIds).toEqual([s.realm.owner.id, s.realm.admin.id, s.realm.member.id].sort((a, b) => a - b));
    expectError(await s.api.delete(s.realm.admin, `/streams/${c.id}`), "Channel is already deactivated");
    expect(names(expectSuccess(await s.api.get(s.realm.admin, "/streams", { include_all: true })))).not.toContain("doomed");
    expectError(await s.api.get(s.realm.member, "/get_stream_id", { stream: "doomed" }), "Invalid channel name 'doomed'");
    expectError(await s.api.delete(s.realm.admin, `/streams/${otherRealm.id}`), "Invalid channel ID");
  });
});
