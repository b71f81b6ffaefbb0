import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel } from "../support/messages.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let mods: { id: number };
let lobby: { id: number };
let hidden: { id: number };

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, admin } = s.realm;
  mods = await makeChannel(s, "moderators", { subscribers: [owner, admin], invite_only: true });
  lobby = await makeChannel(s, "lobby", { subscribers: [owner, admin] });
  hidden = await makeChannel(s, "owners-only", { subscribers: [owner], invite_only: true });
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const realmRow = () => s.db.selectFrom("realms").selectAll().where("id", "=", s.realm.realm.id).executeTakeFirstOrThrow();

describe("PATCH /realm", () => {
  it("sets and unsets the moderation request channel, with realm update events to every active user", async () => {
    const { admin } = s.realm;
    expect(expectSuccess(await s.api.patch(admin, "/realm", { moderation_request_channel_id: mods.id }))).toEqual({ result: "success", msg: "", moderation_request_channel_id: mods.id });
    expect((await realmRow()).moderation_request_channel_id).toBe(mods.id);
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update", property: "moderation_request_channel_id", value: mods.id }]);
    expect(published[0].userIds).toEqual(expect.arrayContaining([s.realm.owner.id, s.realm.member.id, s.realm.guest.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);
    const state = expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm"] }));
    expect(state.realm_moderation_request_channel_id).toBe(mods.id);
    published = [];
    // The same value again changes nothing.
    expect(expectSuccess(await s.api.patch(admin, "/realm", { moderation_request_channel_id: mods.id }))).toEqual({ result: "success", msg: "" });
    expect(published).toEqual([]);
    expectSuccess(await s.api.patch(admin, "/realm", { moderation_request_channel_id: -1 }));
    expect((await realmRow()).moderation_request_channel_id).toBeNull();
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update", property: "moderation_request_channel_id", value: -1 }]);
  });

  it("simple settings: allow_message_editing (update_dict) and waiting_period_threshold (update)", async () => {
    const { owner } = s.realm;
    expect(expectSuccess(await s.api.patch(owner, "/realm", { allow_message_editing: false, waiting_period_threshold: 7 }))).toEqual({
      result: "success",
      msg: "",
      allow_message_editing: false,
      waiting_period_threshold: 7,
    });
    expect(published.map((p) => p.event)).toEqual([
      { type: "realm", op: "update_dict", property: "default", data: { allow_message_editing: false } },
      { type: "realm", op: "update", property: "waiting_period_threshold", value: 7 },
    ]);
    const row = await realmRow();
    expect([row.allow_message_editing, row.waiting_period_threshold]).toEqual([0, 7]);
    expectSuccess(await s.api.patch(owner, "/realm", { allow_message_editing: true }));
  });

  it("administrators only; bad values and channels are refused and change nothing", async () => {
    const { member, moderator, admin } = s.realm;
    const before = await realmRow();
    expectError(await s.api.patch(member, "/realm", { waiting_period_threshold: 3 }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.patch(moderator, "/realm", { waiting_period_threshold: 3 }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    expectError(await s.api.patch(admin, "/realm", { moderation_request_channel_id: lobby.id }), "Moderation request channel must be private.");
    expectError(await s.api.patch(admin, "/realm", { moderation_request_channel_id: hidden.id }), "Invalid channel ID");
    expectError(await s.api.patch(admin, "/realm", { moderation_request_channel_id: 99999 }), "Invalid channel ID");
    expectError(await s.api.patch(admin, "/realm", { moderation_request_channel_id: "x" }), "moderation_request_channel_id is not valid JSON");
    expectError(await s.api.patch(admin, "/realm", { waiting_period_threshold: -1 }), "waiting_period_threshold is too small");
    expectError(await s.api.patch(admin, "/realm", { allow_message_editing: 1 }), "allow_message_editing is not a boolean");
    // A later bad value refuses the whole request.
    expectError(await s.api.patch(admin, "/realm", { allow_message_editing: false, moderation_request_channel_id: lobby.id }), "Moderation request channel must be private.");
    expect(await realmRow()).toEqual(before);
    expect(published).toEqual([]);
  });

  it("reports unknown parameters as ignored", async () => {
    const body = (await s.api.patch(s.realm.admin, "/realm", { no_such_setting: true })).json();
    expect(body).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["no_such_setting"] });
  });
});

describe("PATCH /realm: every organization setting", () => {
  it("text settings answer \"updated\" and send update events", async () => {
    const { owner } = s.realm;
    expect(expectSuccess(await s.api.patch(owner, "/realm", { name: "Renamed org", description: "About us" }))).toEqual({
      result: "success",
      msg: "",
      name: "updated",
      description: "updated",
    });
    expect(published.map((p) => p.event)).toEqual([
      { type: "realm", op: "update", property: "name", value: "Renamed org" },
      { type: "realm", op: "update", property: "description", value: "About us" },
    ]);
    const row = await realmRow();
    expect([row.name, row.description]).toEqual(["Renamed org", "About us"]);
  });

  it("flags: update events; mandatory_topics and allow_edit_history also announce their derived policies", async () => {
    const { owner } = s.realm;
    const flags = {
      invite_required: false,
      emails_restricted_to_domains: true,
      disallow_disposable_email_addresses: false,
      mandatory_topics: true,
      allow_edit_history: false,
      enable_spectator_access: true,
      presence_disabled: true,
    };
    expect(expectSuccess(await s.api.patch(owner, "/realm", flags))).toEqual({ result: "success", msg: "", ...flags });
    const row = await realmRow();
    expect(row).toMatchObject({ invite_required: 0, emails_restricted_to_domains: 1, disallow_disposable_email_addresses: 0, mandatory_topics: 1, allow_edit_history: 0, enable_spectator_access: 1, presence_disabled: 1 });
    const events = published.map((p) => p.event);
    expect(events).toContainEqual({ type: "realm", op: "update", property: "mandatory_topics", value: true });
    expect(events).toContainEqual({ type: "realm", op: "update", property: "topics_policy", value: "disable_empty_topic" });
    expect(events).toContainEqual({ type: "realm", op: "update", property: "allow_edit_history", value: false });
    expect(events).toContainEqual({ type: "realm", op: "update", property: "message_edit_history_visibility_policy", value: "none" });
    const state = expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm"] }));
    expect(state).toMatchObject({ realm_mandatory_topics: true, realm_topics_policy: "disable_empty_topic", realm_allow_edit_history: false, realm_presence_disabled: true });
  });

  it("time limits take a positive number of seconds or \"unlimited\"", async () => {
    const { admin } = s.realm;
    const body = expectSuccess(
      await s.api.patch(admin, "/realm", {
        message_content_edit_limit_seconds: 600,
        message_content_delete_limit_seconds: JSON.stringify("unlimited"),
        move_messages_within_stream_limit_seconds: 3600,
        move_messages_between_streams_limit_seconds: 7200,
      }),
    );
    const before = await realmRow();
    expect(before).toMatchObject({
      message_content_edit_limit_seconds: 600,
      move_messages_within_stream_limit_seconds: 3600,
      move_messages_between_streams_limit_seconds: 7200,
    });
    expect(body.message_content_edit_limit_seconds).toBe(600);
    expect(published.map((p) => p.event)).toContainEqual({ type: "realm", op: "update_dict", property: "default", data: { message_content_edit_limit_seconds: 600 } });
    published = [];
    expect(expectSuccess(await s.api.patch(admin, "/realm", { message_content_edit_limit_seconds: JSON.stringify("unlimited") }))).toEqual({
      result: "success",
      msg: "",
      message_content_edit_limit_seconds: null,
    });
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update_dict", property: "default", data: { message_content_edit_limit_seconds: null } }]);
    expect((await realmRow()).message_content_edit_limit_seconds).toBeNull();
    published = [];
    const bad = await s.api.patch(admin, "/realm", { message_content_delete_limit_seconds: 0 });
    expectError(bad, "Bad value for 'message_content_delete_limit_seconds': 0", { code: "REQUEST_VARIABLE_INVALID" });
    expectError(await s.api.patch(admin, "/realm", { move_messages_within_stream_limit_seconds: -5 }), "Bad value for 'move_messages_within_stream_limit_seconds': -5", { code: "REQUEST_VARIABLE_INVALID" });
    expectError(await s.api.patch(admin, "/realm", { message_content_edit_limit_seconds: JSON.stringify("forever") }), "Bad value for 'message_content_edit_limit_seconds': forever", { code: "REQUEST_VARIABLE_INVALID" });
    expectError(await s.api.patch(admin, "/realm", { message_content_edit_limit_seconds: "true" }), "message_content_edit_limit_seconds is not a string");
    expect(published).toEqual([]);
  });

  it("default_language and the new-channel announcements channel", async () => {
    const { admin } = s.realm;
    expect(expectSuccess(await s.api.patch(admin, "/realm", { default_language: "de", new_stream_announcements_stream_id: lobby.id }))).toEqual({
      result: "success",
      msg: "",
      default_language: "updated",
      new_stream_announcements_stream_id: lobby.id,
    });
    expect(published.map((p) => p.event)).toEqual([
      { type: "realm", op: "update", property: "default_language", value: "de" },
      { type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: lobby.id },
    ]);
    published = [];
    expectSuccess(await s.api.patch(admin, "/realm", { new_stream_announcements_stream_id: -1 }));
    expect((await realmRow()).new_stream_announcements_stream_id).toBeNull();
    expect(published.map((p) => p.event)).toEqual([{ type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: -1 }]);
    published = [];
    const before = await realmRow();
    expectError(await s.api.patch(admin, "/realm", { default_language: "xx-nope" }), "Invalid language 'xx-nope'");
    expectError(await s.api.patch(admin, "/realm", { new_stream_announcements_stream_id: hidden.id }), "Invalid channel ID");
    expectError(await s.api.patch(admin, "/realm", { name: "x".repeat(41) }), "name is too long (limit: 40 characters)");
    expectError(await s.api.patch(admin, "/realm", { description: "x".repeat(1001) }), "description is too long (limit: 1000 characters)");
    expect(await realmRow()).toEqual(before);
    expect(published).toEqual([]);
  });

  it("owner-only settings refuse administrators; a refused request changes nothing", async () => {
    const { admin, member } = s.realm;
    const before = await realmRow();
    for (const params of [
      { invite_required: !before.invite_required },
      { emails_restricted_to_domains: !before.emails_restricted_to_domains },
      { disallow_disposable_email_addresses: !before.disallow_disposable_email_addresses },
      { waiting_period_threshold: before.waiting_period_threshold + 1 },
    ]) {
      expectError(await s.api.patch(admin, "/realm", { name: "Admin was here", ...params }), "Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL" });
    }
    expectError(await s.api.patch(member, "/realm", { name: "Member was here" }), "Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL" });
    // The language is checked before ownership, as upstream does.
    expectError(await s.api.patch(admin, "/realm", { invite_required: true, default_language: "zz" }), "Invalid language 'zz'");
    expect(await realmRow()).toEqual(before);
    expect(published).toEqual([]);
  });

  it("unchanged values answer nothing and send no event", async () => {
    const { owner } = s.realm;
    const row = await realmRow();
    const body = expectSuccess(
      await s.api.patch(owner, "/realm", {
        name: row.name,
        description: row.description,
        invite_required: row.invite_required === 1,
        mandatory_topics: row.mandatory_topics === 1,
        default_language: row.default_language,
        message_content_edit_limit_seconds: row.message_content_edit_limit_seconds ?? JSON.stringify("unlimited"),
        waiting_period_threshold: row.waiting_period_threshold,
      }),
    );
    expect(body).toEqual({ result: "success", msg: "" });
    expect(published).toEqual([]);
  });
});
