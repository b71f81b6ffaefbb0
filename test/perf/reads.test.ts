/**
 * The read paths run a fixed number of queries whatever the size of the data: reading
 * one message or a window of a channel (reader's subscriptions, the messages' reactions
 * and edits), and presence polls (number of users). Each is measured at two sizes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { addMembers } from "../support/load-users.js";
import { expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import { directReaderOf } from "../../src/db/direct-reads.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("query counts on the read paths", () => {
  it("GET /messages/{id} and GET /messages do not grow with subscriptions, messages, reactions or edits", async () => {
    const { member, other } = s.realm;
    await createChannel(s, { name: "rd private", invite_only: true, history_public_to_subscribers: true, subscribers: [member, other] });
    const send = () => s.api.post(other, "/messages", { type: "stream", to: "rd private", topic: "t", content: "read me" }).then(expectSuccess);
    const id = (await send()).id as number;
    const one = () => s.api.get(member, `/messages/${id}`).then(expectSuccess);
    const narrow = JSON.stringify([{ operator: "channel", operand: "rd private" }]);
    const window = () => s.api.get(member, "/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow }).then(expectSuccess);
    const oneFew = await s.countQueries(one);
    const windowFew = await s.countQueries(window);

    for (let i = 0; i < 8; i++) await createChannel(s, { name: `rd more ${i}`, subscribers: [member] });
    for (let i = 0; i < 10; i++) await send();
    for (const emoji_name of ["tada", "smile", "heart"]) expectSuccess(await s.api.post(other, `/messages/${id}/reactions`, { emoji_name }));
    expectSuccess(await s.api.patch(other, `/messages/${id}`, { content: "read me, edited" }));
    expectSuccess(await s.api.patch(other, `/messages/${id}`, { content: "read me, edited twice" }));

    expect(await s.countQueries(one)).toBe(oneFew);
    expect(await s.countQueries(window)).toBe(windowFew);
    // Cold: auth (2), the access check (the reader's flags, the channel, the subscription)
    // and one statement for the cached record (the sender, reactions, submessages, edits,
    // linkifiers as JSON aggregates).
    expect(oneFew).toBe(4);
    // Warm (the auth lookup and the record cached): the access check alone; on a SQLite
    // file (TEST_SQLITE_FILE=1) not even that while nothing was committed since.
    await one();
    expect(await s.countQueries(one, { warm: true })).toBe(directReaderOf(s.db) ? 0 : 1);
  });

  it("GET /messages/{id} of a direct message does not grow with its recipients or reactions", async () => {
    const { member, other, owner, admin } = s.realm;
    const dm = (to: number[]) => s.api.post(member, "/messages", { type: "direct", to: JSON.stringify(to), content: "hi" }).then(expectSuccess);
    const oneToOne = (await dm([other.id])).id as number;
    const group = (await dm([other.id, owner.id, admin.id])).id as number;
    const read = (id: number) => () => s.api.get(member, `/messages/${id}`).then(expectSuccess);
    const few = await s.countQueries(read(oneToOne));
    expect(await s.countQueries(read(group))).toBe(few);
    for (const emoji_name of ["tada", "smile", "heart"]) expectSuccess(await s.api.post(other, `/messages/${group}/reactions`, { emoji_name }));
    expect(await s.countQueries(read(group))).toBe(few);
    expect(few).toBe(4);
    const body = await read(group)();
    expect(body.message.display_recipient.map((u: { id: number }) => u.id)).toEqual([member.id, other.id, owner.id, admin.id].sort((a, b) => a - b));
    expect(body.message.reactions).toHaveLength(3);
  });

  it("POST /users/me/presence (incremental and full) does not grow with the number of users", async () => {
    const { member, other } = s.realm;
    const poll = (last_update_id: number) => () => s.api.post(member, "/users/me/presence", { status: "active", last_update_id }).then(expectSuccess);
    expectSuccess(await s.api.post(other, "/users/me/presence", { status: "active" }));
    const current = ((await poll(-1)()) as { presence_last_update_id: number }).presence_last_update_id;
    const incrementalFew = await s.countQueries(poll(current));
    const fullFew = await s.countQueries(poll(-1));
    await addMembers(s, 15, "rd-presence-");
    const users = await s.db.selectFrom("users").selectAll().where("delivery_email", "like", "rd-presence-%").execute();
    for (const u of users) expectSuccess(await s.api.post(u, "/users/me/presence", { status: "active" }));
    expect(await s.countQueries(poll(current))).toBe(incrementalFew);
    expect(await s.countQueries(poll(-1))).toBe(fullFew);
    // auth (2) + one statement for the caller's stored presence and the changed rows; the
    // caller's own row was written less than a minute ago, so nothing is written.
    expect(incrementalFew).toBe(3);
    await poll(current)();
    expect(await s.countQueries(poll(current), { warm: true })).toBe(1);
  });
});
