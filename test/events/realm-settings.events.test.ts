import { afterAll, beforeAll, describe, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel } from "../support/messages.js";
import { REALM_GROUP_SETTINGS } from "../../src/lib/realm-group-settings.js";
import { REALM_SETTINGS } from "../../src/lib/realm-settings.js";

let s: TestServer;
let mods: { id: number };
beforeAll(async () => {
  s = await startTestServer();
  mods = await makeChannel(s, "moderators", { subscribers: [s.realm.owner], invite_only: true });
});
afterAll(() => s.close());

/**
 * The register types these settings can touch. A full register currently fails the
 * contract check (navigation_views, push_devices and reminders are not in the schema).
 */
const STATE = { fetch_event_types: ["realm", "realm_user", "presence", "stream", "subscription", "user_settings", "realm_user_settings_defaults"] };
const verify = (action: () => Promise<unknown>) => verifyAction(s, s.realm.member, action, STATE);

const patch = (params: Record<string, unknown>) => () => s.api.patch(s.realm.owner, "/realm", params).then(expectSuccess);

describe("PATCH /realm events keep /register state current", () => {
  it("moderation request channel set and unset", async () => {
    await verify(patch({ moderation_request_channel_id: mods.id }));
    await verify(patch({ moderation_request_channel_id: -1 }));
  });

  it("allow_message_editing and waiting_period_threshold", async () => {
    await verify(patch({ allow_message_editing: false, waiting_period_threshold: 5 }));
  });
});

describe("every organization setting's events keep /register state current", () => {
  it("text settings and the language", async () => {
    await verify(patch({ name: "New name", description: "New description", default_language: "fr" }));
  });

  it("every flag turned over and back, with the derived policies", async () => {
    const flags = Object.entries(REALM_SETTINGS).filter(([, setting]) => setting.parser === "bool");
    const row = await s.db.selectFrom("realms").selectAll().where("id", "=", s.realm.realm.id).executeTakeFirstOrThrow();
    await verify(patch(Object.fromEntries(flags.map(([name, setting]) => [name, row[setting.column] !== 1]))));
    await verify(patch(Object.fromEntries(flags.map(([name, setting]) => [name, row[setting.column] === 1]))));
  });

  it("time limits set and made unlimited", async () => {
    const limits = ["message_content_edit_limit_seconds", "message_content_delete_limit_seconds", "move_messages_within_stream_limit_seconds", "move_messages_between_streams_limit_seconds"];
    await verify(patch(Object.fromEntries(limits.map((name, i) => [name, 100 * (i + 1)]))));
    await verify(patch(Object.fromEntries(limits.map((name) => [name, JSON.stringify("unlimited")]))));
  });

  it("new-channel announcements channel set and unset", async () => {
    await verify(patch({ new_stream_announcements_stream_id: mods.id }));
    await verify(patch({ new_stream_announcements_stream_id: -1 }));
  });
});

describe("group-valued settings' events keep /register state current", () => {
  const groupId = async (name: string) =>
    (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", name).executeTakeFirstOrThrow()).id;

  it("every group setting to another allowed system group", async () => {
    const admins = await groupId("role:administrators");
    const members = await groupId("role:members");
    const params: Record<string, unknown> = {};
    for (const name of Object.keys(REALM_GROUP_SETTINGS)) {
      const target = name === "can_access_all_users_group" ? members : admins;
      params[name] = JSON.stringify({ new: target });
    }
    await verify(patch(params));
  });

  it("an anonymous value, changed in place, then replaced by a named group", async () => {
    const { member, moderator } = s.realm;
    const mods = await groupId("role:moderators");
    await verify(patch({ can_mention_many_users_group: JSON.stringify({ new: { direct_members: [member.id], direct_subgroups: [mods] } }) }));
    await verify(patch({ can_mention_many_users_group: JSON.stringify({ new: { direct_members: [member.id, moderator.id], direct_subgroups: [] } }) }));
    await verify(patch({ can_mention_many_users_group: JSON.stringify({ new: mods }) }));
  });
});

