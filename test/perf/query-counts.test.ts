/**
 * Hot paths issue a constant number of queries, whatever the size of the data: each
 * endpoint is measured at two sizes and the counts must be equal (no per-row queries).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { addMembers } from "../support/load-users.js";
import { expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("query counts on hot paths", () => {
  it("GET /users does not grow with the number of users", async () => {
    const get = () => s.api.get(s.realm.member, "/users", { include_custom_profile_fields: true }).then(expectSuccess);
    const small = await s.countQueries(get);
    await addMembers(s, 30, "qc-users-");
    const large = await s.countQueries(get);
    expect(large).toBe(small);
  });

  it("GET /users/me and GET /server_settings stay within a few queries", async () => {
    const me = await s.countQueries(() => s.api.get(s.realm.member, "/users/me").then(expectSuccess));
    // auth (user, realm) + profile fields and values + max_message_id
    expect(me).toBeLessThanOrEqual(5);
    const settings = await s.countQueries(() => s.api.get(null, "/server_settings").then(expectSuccess));
    expect(settings).toBeLessThanOrEqual(2);
  });

  it("POST /messages does not grow with the number of recipients", async () => {
    const { member, other, admin } = s.realm;
    await createChannel(s, { name: "qc small", subscribers: [member, other, admin] });
    const many = await addMembers(s, 40, "qc-send-");
    await createChannel(s, { name: "qc large", subscribers: [member, other, admin, ...many] });
    const send = (to: string) => () =>
      s.api.post(member, "/messages", { type: "stream", to, topic: "t", content: "hello @**Otto Other**, see https://example.com :smile:" }).then(expectSuccess);
    await send("qc small")(); // warm: first message of a channel also sets first_message_id
    await send("qc large")();
    const small = await s.countQueries(send("qc small"));
    const large = await s.countQueries(send("qc large"));
    expect(large).toBe(small);
    const last = await s.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirstOrThrow();
    const rows = await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", Number(last.id)).execute();
    expect(rows.length).toBe(43); // every subscriber got a row, from one batched insert

  });

  it("POST /register does not grow with users and channels", async () => {
    const register = () => s.api.post(s.realm.member, "/register", { include_subscribers: true }).then(expectSuccess);
    // One unread message to start from: the unread messages' facts missing from the cache
    // are read in one statement, whether one is missing or a thousand (none: no statement).
    expectSuccess(await s.api.post(s.realm.other, "/messages", { type: "direct", to: [s.realm.member.id], content: "first unread" }));
    const small = await s.countQueries(register);
    await addMembers(s, 20, "qc-register-");
    for (let i = 0; i < 5; i++) {
      expectSuccess(await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: `qc channel ${i}` }] }));
      // Unread channel messages, direct messages and group conversations (unread_msgs, recent_private_conversations).
      expectSuccess(await s.api.post(s.realm.other, "/users/me/subscriptions", { subscriptions: [{ name: `qc channel ${i}` }] }));
      expectSuccess(await s.api.post(s.realm.other, "/messages", { type: "stream", to: `qc channel ${i}`, topic: `t${i}`, content: "unread" }));
      expectSuccess(await s.api.post(s.realm.other, "/messages", { type: "direct", to: [s.realm.member.id], content: "unread dm" }));
      expectSuccess(await s.api.post(s.realm.admin, "/messages", { type: "direct", to: [s.realm.member.id, s.realm.other.id], content: "group" }));
    }
    const large = await s.countQueries(register);
    expect(large).toBe(small);
  });
  it("sending, reading and reacting do not grow with the number of reactions", async () => {
    const { member, other } = s.realm;
    await createChannel(s, { name: "qc reactions", subscribers: [member, other] });
    const send = () => s.api.post(member, "/messages", { type: "stream", to: "qc reactions", topic: "t", content: "react to me" }).then(expectSuccess);
    const first = (await send()).id as number;
    const second = (await send()).id as number;
    const react = (id: number, emoji_name: string) => () => s.api.post(other, `/messages/${id}/reactions`, { emoji_name }).then(expectSuccess);
    const unreact = (id: number, emoji_name: string) => () => s.api.delete(other, `/messages/${id}/reactions`, { emoji_name }).then(expectSuccess);
    const fetch = () => s.api.get(member, "/messages", { anchor: "newest", num_before: 5, num_after: 0 }).then(expectSuccess);
    const sendFew = await s.countQueries(send);
    const fetchFew = await s.countQueries(fetch);
    const reactFew = await s.countQueries(react(first, "octopus"));
    const unreactFew = await s.countQueries(unreact(first, "octopus"));
    for (const name of ["tada", "smile", "heart", "eyes", "rocket", "fire", "star", "wave"]) {
      await react(second, name)();
      expectSuccess(await s.api.post(member, `/messages/${second}/reactions`, { emoji_name: name }));
    }
    expect(await s.countQueries(send)).toBe(sendFew);
    expect(await s.countQueries(fetch)).toBe(fetchFew);
    expect(await s.countQueries(react(second, "octopus"))).toBe(reactFew);
    expect(await s.countQueries(unreact(second, "octopus"))).toBe(unreactFew);
  });

  it("drafts and scheduled messages do not grow with the caller's drafts, scheduled messages or the channel's subscribers", async () => {
    const { member, admin } = s.realm;
    const channel = await createChannel(s, { name: "qc drafts", subscribers: [member, admin] });
    const now = Math.floor(Date.now() / 1000);
    const draft = (content: string) => ({ type: "stream", to: [channel.id], topic: "plans", content, timestamp: now });
    const createDraft = async (content: string) => (expectSuccess(await s.api.post(member, "/drafts", { drafts: [draft(content)] })).ids as number[])[0];
    const schedule = () =>
      s.api.post(member, "/scheduled_messages", { type: "stream", to: channel.id, topic: "later", content: "**later**", scheduled_delivery_timestamp: now + 3600 }).then(expectSuccess);
    // Each family's statements: create, edit, list, delete; schedule, list.
    const counts = async () => {
      let id = 0;
      return {
        create: await s.countQueries(async () => void (id = await createDraft("one more"))),
        edit: await s.countQueries(() => s.api.patch(member, `/drafts/${id}`, { draft: draft("edited") }).then(expectSuccess)),
        list: await s.countQueries(() => s.api.get(member, "/drafts").then(expectSuccess)),
        remove: await s.countQueries(() => s.api.delete(member, `/drafts/${id}`).then(expectSuccess)),
        schedule: await s.countQueries(schedule),
        scheduled: await s.countQueries(() => s.api.get(member, "/scheduled_messages").then(expectSuccess)),
      };
    };
    await counts(); // the first of each: nothing to compare yet
    const few = await counts();
    const members = await addMembers(s, 20, "qc-drafts-");
    expectSuccess(await s.api.post(admin, "/users/me/subscriptions", { subscriptions: [{ name: "qc drafts" }], principals: members.map((m) => m.id) }));
    for (let i = 0; i < 20; i++) {
      await createDraft(`draft ${i}`);
      await schedule();
    }
    const many = await counts();
    expect(many).toEqual(few);
    // The listings did answer with everything: the 20 drafts (each round deletes the one it
    // made) and the 20 scheduled messages plus one per round.
    expect((expectSuccess(await s.api.get(member, "/drafts")).drafts as unknown[]).length).toBe(20);
    expect((expectSuccess(await s.api.get(member, "/scheduled_messages")).scheduled_messages as unknown[]).length).toBe(23);
  });
});
