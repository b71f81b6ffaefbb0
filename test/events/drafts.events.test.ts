/** drafts events keep /register's `drafts` current, and reach only the owner's clients. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { queuedEvents, register, verifyAction } from "../support/events.js";
import { createChannel } from "../support/channels.js";
import type { Channel } from "../../src/db/schema.js";

let s: TestServer;
let room: Channel;
beforeAll(async () => {
  s = await startTestServer();
  room = await createChannel(s, { name: "drafting", subscribers: [s.realm.member] });
});
afterAll(() => s.close());

const T = 1_800_000_000;
const REG = { event_types: ["drafts", "user_settings"] };

describe("drafts events", () => {
  it("add, update and remove keep the register state equal to a fresh one", async () => {
    const { member, other, admin } = s.realm;
    const adminQueue = (await register(s, admin, REG)).queue_id;
    let ids: number[] = [];
    const added = await verifyAction(
      s,
      member,
      async () => {
        ids = expectSuccess(
          await s.api.post(member, "/drafts", {
            drafts: [
              { type: "stream", to: [room.id], topic: "t", content: "one", timestamp: T + 2 },
              { type: "private", to: [other.id], topic: "", content: "two", timestamp: T + 1 },
            ],
          }),
        ).ids;
      },
      REG,
    );
    expect(added).toEqual([
      {
        type: "drafts",
        op: "add",
        drafts: [
          { id: ids[0], type: "stream", to: [room.id], topic: "t", content: "one", timestamp: T + 2 },
          { id: ids[1], type: "private", to: [other.id], topic: "", content: "two", timestamp: T + 1 },
        ],
        id: 0,
      },
    ]);
    const updated = await verifyAction(
      s,
      member,
      async () => expectSuccess(await s.api.patch(member, `/drafts/${ids[1]}`, { draft: { type: "", to: [], topic: "", content: "three", timestamp: T + 9 } })),
      REG,
    );
    expect(updated).toEqual([{ type: "drafts", op: "update", draft: { id: ids[1], type: "", to: [], topic: "", content: "three", timestamp: T + 9 }, id: 0 }]);
    const removed = await verifyAction(s, member, async () => expectSuccess(await s.api.delete(member, `/drafts/${ids[0]}`)), REG);
    expect(removed).toEqual([{ type: "drafts", op: "remove", draft_id: ids[0], id: 0 }]);
    // Nobody else hears about another user's drafts.
    expect(await queuedEvents(s, admin, adminQueue)).toEqual([]);
  });

  it("turning synchronization off empties the drafts state without draft events", async () => {
    const { member } = s.realm;
    const events = await verifyAction(s, member, async () => expectSuccess(await s.api.patch(member, "/settings", { enable_drafts_synchronization: false })), REG);
    expect(events.map((e) => e.type)).toEqual(["user_settings"]);
    expect((await register(s, member, REG)).drafts).toEqual([]);
  });
});
