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
    expectError(await s.api.patch(admin, "/realm", { waiting_period_threshold: 9, moderation_request_channel_id: lobby.id }), "Moderation request channel must be private.");
    expect(await realmRow()).toEqual(before);
    expect(published).toEqual([]);
  });

  it("reports unknown parameters as ignored", async () => {
    const body = (await s.api.patch(s.realm.admin, "/realm", { no_such_setting: true })).json();
    expect(body).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["no_such_setting"] });
  });
});
