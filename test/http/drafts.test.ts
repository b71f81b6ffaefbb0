/** Drafts (spec 2.2, 4.7): create, list, edit, delete; validation in upstream's order; ownership. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { Channel, User } from "../../src/db/schema.js";

let s: TestServer;
let room: Channel;
let secret: Channel;
beforeAll(async () => {
  s = await startTestServer();
  room = await createChannel(s, { name: "drafting", subscribers: [s.realm.member] });
  secret = await createChannel(s, { name: "secret-drafts", invite_only: true, subscribers: [s.realm.admin] });
});
afterAll(() => s.close());

const NOW = 1_800_000_000;
const draft = (over: Record<string, unknown> = {}) => ({ type: "stream", to: [room.id], topic: "plans", content: "hello", timestamp: NOW, ...over });
const rows = (user: User) => s.db.selectFrom("drafts").selectAll().where("user_id", "=", user.id).orderBy("id").execute();
const create = async (user: User, drafts: unknown[]) => expectSuccess(await s.api.post(user, "/drafts", { drafts })).ids as number[];

describe("POST /drafts and GET /drafts", () => {
  it("stores each kind of draft and lists them oldest edit first", async () => {
    const { other, member, admin } = s.realm;
    const ids = await create(other, [
      draft({ timestamp: NOW + 5 }),
      { type: "private", to: [admin.id, member.id, other.id, admin.id], topic: "ignored", content: "  group  ", timestamp: NOW + 1 },
      { type: "private", to: [other.id], topic: "", content: "note to self", timestamp: NOW + 2.9 },
      { type: "private", to: [], topic: "x", content: "nobody yet", timestamp: NOW + 3 },
      { type: "", to: [room.id], topic: "x", content: "unaddressed", timestamp: NOW + 4 },
    ]);
    expect(ids).toHaveLength(5);
    const body = expectSuccess(await s.api.get(other, "/drafts"));
    expect(body).toEqual({
      result: "success",
      msg: "",
      count: 5,
      drafts: [
        { id: ids[1], type: "private", to: [member.id, admin.id].sort((a, b) => a - b), topic: "", content: "group", timestamp: NOW + 1 },
        { id: ids[2], type: "private", to: [other.id], topic: "", content: "note to self", timestamp: NOW + 2 },
        { id: ids[3], type: "", to: [], topic: "", content: "nobody yet", timestamp: NOW + 3 },
        { id: ids[4], type: "", to: [], topic: "", content: "unaddressed", timestamp: NOW + 4 },
        { id: ids[0], type: "stream", to: [room.id], topic: "plans", content: "hello", timestamp: NOW + 5 },
      ],
    });
    // Other users see only their own drafts.
    expect(expectSuccess(await s.api.get(admin, "/drafts")).drafts).toEqual([]);
  });

  it("fills in the timestamp from the server clock and keeps long topics truncated", async () => {
    const { moderator } = s.realm;
    const saved = s.ctx.now;
    s.ctx.now = () => NOW * 1000 + 750;
    try {
      const [id] = await create(moderator, [{ type: "stream", to: [room.id], topic: "t".repeat(70), content: "c" }]);
      const [row] = await rows(moderator);
      expect(row).toMatchObject({ id, last_edit_time: NOW, topic: `${"t".repeat(57)}...` });
    } finally {
      s.ctx.now = saved;
    }
  });

  it("checks the drafts list and every draft before storing any", async () => {
    const { guest, member } = s.realm;
    const bad: Array<[unknown, string]> = [
      [{ drafts: "nope" }, "drafts is not valid JSON"],
      [{ drafts: { a: 1 } }, "drafts is not a list"],
      [{ drafts: [draft({ id: 5 })] }, 'Argument "id" at drafts[0]["id"] is unexpected'],
      [{ drafts: [draft({ type: "channel" })] }, 'Invalid drafts[0]["type"]'],
      [{ drafts: [draft({ to: ["a"] })] }, 'drafts[0]["to"][0] is not an integer'],
      [{ drafts: [draft({ topic: 3 })] }, 'drafts[0]["topic"] is not a string'],
      [{ drafts: [draft({ content: "  " })] }, 'drafts[0]["content"] cannot be blank'],
      [{ drafts: [draft({ timestamp: "x" })] }, 'drafts[0]["timestamp"]["int"] is not an integer'],
      [{ drafts: [draft({ content: "a\x00b" })] }, "Message must not contain null bytes"],
      [{ drafts: [draft({ timestamp: -1 })] }, "Timestamp must not be negative."],
      [{ drafts: [draft({ topic: "a\x00b" })] }, "Topic must not contain null bytes"],
      [{ drafts: [draft({ to: [] })] }, "Must specify exactly 1 channel ID for channel messages"],
      [{ drafts: [draft({ to: [room.id, secret.id] })] }, "Must specify exactly 1 channel ID for channel messages"],
      [{ drafts: [draft({ to: [secret.id] })] }, "Invalid channel ID"],
      [{ drafts: [draft({ to: [999999] })] }, "Invalid channel ID"],
      [{ drafts: [draft(), { type: "private", to: [999999], topic: "", content: "x" }] }, "Invalid user ID 999999"],
      [{ drafts: [{ type: "private", to: [s.other.member.id], topic: "", content: "x" }] }, `Invalid user ID ${s.other.member.id}`],
      [{}, "Missing 'drafts' argument"],
    ];
    for (const [params, msg] of bad) {
      expectError(await s.api.post(member, "/drafts", params as Record<string, unknown>), msg, msg.startsWith("Missing") ? { code: "REQUEST_VARIABLE_MISSING" } : {});
    }
    // A guest cannot address a public channel they are not subscribed to.
    expectError(await s.api.post(guest, "/drafts", { drafts: [draft()] }), "Invalid channel ID");
    expect(await rows(member)).toEqual([]);
    expect(await rows(guest)).toEqual([]);
  });

  it("refuses a direct draft to a deactivated user", async () => {
    const { member, owner } = s.realm;
    const gone = await createUser("gone");
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone.id).execute();
    expectError(await s.api.post(member, "/drafts", { drafts: [{ type: "private", to: [owner.id, gone.id], topic: "", content: "x" }] }), `'${gone.delivery_email}' is no longer using Parley.`);
    expect(await rows(member)).toEqual([]);
  });
});

async function createUser(local: string): Promise<User> {
  const body = expectSuccess(await s.api.post(s.realm.owner, "/users", { email: `${local}@example.com`, password: "pass-word-123", full_name: `User ${local}` }));
  return (await s.db.selectFrom("users").selectAll().where("id", "=", body.user_id).executeTakeFirstOrThrow()) as User;
}

describe("PATCH /drafts/{draft_id}", () => {
  it("replaces the draft and keeps its id", async () => {
    const { admin, member } = s.realm;
    const [id] = await create(admin, [draft({ to: [secret.id] })]);
    expectSuccess(await s.api.patch(admin, `/drafts/${id}`, { draft: { type: "private", to: [member.id], topic: "dropped", content: "edited", timestamp: NOW + 60 } }));
    expect(expectSuccess(await s.api.get(admin, "/drafts")).drafts).toEqual([
      { id, type: "private", to: [member.id], topic: "", content: "edited", timestamp: NOW + 60 },
    ]);
  });

  it("checks the shape, then ownership, then the contents; failures change nothing", async () => {
    const { admin, member } = s.realm;
    const [id] = await create(member, [draft()]);
    const before = await rows(member);
    expectError(await s.api.patch(member, `/drafts/${id}`, {}), "Missing 'draft' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.patch(member, `/drafts/${id}`, { draft: "{" }), "draft is not valid JSON");
    expectError(await s.api.patch(member, `/drafts/${id}`, { draft: draft({ id }) }), 'Argument "id" at draft["id"] is unexpected');
    expectError(await s.api.patch(member, `/drafts/${id}`, { draft: draft({ type: "x" }) }), 'Invalid draft["type"]');
    expectError(await s.api.patch(member, "/drafts/999999", { draft: draft({ content: "" }) }), 'draft["content"] cannot be blank');
    expectError(await s.api.patch(member, "/drafts/999999", { draft: draft() }), "Draft does not exist", { status: 404 });
    expectError(await s.api.patch(member, `/drafts/${id}`, { draft: draft({ to: [secret.id] }) }), "Invalid channel ID");
    expectError(await s.api.patch(member, `/drafts/${id}`, { draft: draft({ timestamp: -5 }) }), "Timestamp must not be negative.");
    // Another user's draft is not found, and stays as it was.
    expectError(await s.api.patch(admin, `/drafts/${id}`, { draft: draft({ content: "hijack" }) }), "Draft does not exist", { status: 404 });
    expectError(await s.api.patch(s.other.owner, `/drafts/${id}`, { draft: { type: "", to: [], topic: "", content: "x" } }), "Draft does not exist", { status: 404 });
    expect(await rows(member)).toEqual(before);
  });
});

describe("DELETE /drafts/{draft_id}", () => {
  it("deletes only the owner's draft", async () => {
    const { moderator, admin } = s.realm;
    const [id] = await create(moderator, [draft({ content: "bye" })]);
    expectError(await s.api.delete(admin, `/drafts/${id}`), "Draft does not exist", { status: 404 });
    expect((await rows(moderator)).map((r) => r.id)).toContain(id);
    expectSuccess(await s.api.delete(moderator, `/drafts/${id}`));
    expect((await rows(moderator)).map((r) => r.id)).not.toContain(id);
    expectError(await s.api.delete(moderator, `/drafts/${id}`), "Draft does not exist", { status: 404 });
  });
});

describe("enable_drafts_synchronization", () => {
  it("off: every drafts endpoint refuses first, and the stored drafts are deleted", async () => {
    const user = await createUser("drafter");
    const [id] = await create(user, [{ type: "", to: [], topic: "", content: "keep?" }]);
    expect(await rows(user)).toHaveLength(1);
    expectSuccess(await s.api.patch(user, "/settings", { enable_drafts_synchronization: false }));
    expect(await rows(user)).toEqual([]);
    const off = "User has disabled synchronizing drafts.";
    expectError(await s.api.get(user, "/drafts"), off);
    expectError(await s.api.post(user, "/drafts", { drafts: "bad json" }), off);
    expectError(await s.api.patch(user, `/drafts/${id}`, {}), off);
    expectError(await s.api.delete(user, `/drafts/${id}`), off);
    expect(await rows(user)).toEqual([]);
    // Turning it back on lets the user save drafts again.
    expectSuccess(await s.api.patch(user, "/settings", { enable_drafts_synchronization: true }));
    expect(await create(user, [{ type: "", to: [], topic: "", content: "again" }])).toHaveLength(1);
  });
});
