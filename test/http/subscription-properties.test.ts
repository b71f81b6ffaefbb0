import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel } from "../support/messages.js";
import type { User } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];
let design: { id: number; recipient_id: number };
let secret: { id: number; recipient_id: number };
let unsubscribed: { id: number; recipient_id: number };

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, member } = s.realm;
  design = await makeChannel(s, "design", { subscribers: [owner, member] });
  secret = await makeChannel(s, "secret", { subscribers: [owner], invite_only: true });
  unsubscribed = await makeChannel(s, "not-mine", { subscribers: [owner] });
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const COLUMNS = ["color", "is_muted", "pin_to_top", "desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"] as const;
const subRow = (user: User, recipientId: number) =>
  s.db.selectFrom("subscriptions").select(COLUMNS).where("user_id", "=", user.id).where("recipient_id", "=", recipientId).executeTakeFirstOrThrow();
const post = (user: User, data: unknown) => s.api.post(user, "/users/me/subscriptions/properties", { subscription_data: data });
const update = (stream_id: number, property: string, value: unknown) => ({ type: "subscription", op: "update", property, value, stream_id });

describe("POST /users/me/subscriptions/properties", () => {
  it("stores every property and tells only the user, in order", async () => {
    const { member } = s.realm;
    const data = [
      { stream_id: design.id, property: "color", value: "#abcdef" },
      { stream_id: design.id, property: "pin_to_top", value: true },
      { stream_id: design.id, property: "desktop_notifications", value: true },
      { stream_id: design.id, property: "audible_notifications", value: false },
      { stream_id: design.id, property: "push_notifications", value: true },
      { stream_id: design.id, property: "email_notifications", value: false },
      { stream_id: design.id, property: "wildcard_mentions_notify", value: true },
    ];
    expect(expectSuccess(await post(member, data))).toEqual({ result: "success", msg: "" });
    expect(await subRow(member, design.recipient_id)).toEqual({
      color: "#abcdef",
      is_muted: 0,
      pin_to_top: 1,
      desktop_notifications: 1,
      audible_notifications: 0,
      push_notifications: 1,
      email_notifications: 0,
      wildcard_mentions_notify: 1,
    });
    expect(published.map((p) => p.event)).toEqual(data.map((d) => update(design.id, d.property, d.value)));
    for (const p of published) expect(p.userIds).toEqual([member.id]);
    // The subscription list reports the new values.
    const listed = expectSuccess(await s.api.get(member, "/users/me/subscriptions")).subscriptions.find((x: { stream_id: number }) => x.stream_id === design.id);
    expect(listed).toMatchObject({ color: "#abcdef", pin_to_top: true, desktop_notifications: true, audible_notifications: false, wildcard_mentions_notify: true });
  });

  it("muting: is_muted and the legacy in_home_view, each announced under both names", async () => {
    const { member } = s.realm;
    expectSuccess(await post(member, [{ stream_id: design.id, property: "is_muted", value: true }]));
    expect((await subRow(member, design.recipient_id)).is_muted).toBe(1);
    expect(published.map((p) => p.event)).toEqual([update(design.id, "in_home_view", false), update(design.id, "is_muted", true)]);
    published = [];
    expectSuccess(await post(member, [{ stream_id: design.id, property: "in_home_view", value: true }]));
    expect((await subRow(member, design.recipient_id)).is_muted).toBe(0);
    expect(published.map((p) => p.event)).toEqual([update(design.id, "in_home_view", true), update(design.id, "is_muted", false)]);
  });

  it("refuses bad changes with upstream's messages, and a bad change anywhere stores none", async () => {
    const { member } = s.realm;
    const before = await subRow(member, design.recipient_id);
    const good = { stream_id: design.id, property: "color", value: "#111111" };
    const cases: Array<[unknown, string]> = [
      [[good, { stream_id: design.id, property: "bogus", value: true }], "Unknown subscription property: bogus"],
      [[good, { stream_id: secret.id, property: "color", value: "#222" }], "Invalid channel ID"],
      [[good, { stream_id: 999999, property: "color", value: "#222" }], "Invalid channel ID"],
      [[good, { stream_id: unsubscribed.id, property: "color", value: "#222" }], `Not subscribed to channel ID ${unsubscribed.id}`],
      [[good, { stream_id: design.id, property: "color", value: "red" }], "color is not a valid hex color code"],
      [[good, { stream_id: design.id, property: "color", value: true }], "color is not a string"],
      [[good, { stream_id: design.id, property: "pin_to_top", value: "yes" }], "pin_to_top is not a boolean"],
      [[good, { stream_id: design.id, property: "is_muted" }], "value key is missing from subscription_data[1]"],
    ];
    for (const [data, message] of cases) expectError(await post(member, data), message);
    expectError(await s.api.post(member, "/users/me/subscriptions/properties", {}), "Missing 'subscription_data' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expect(await subRow(member, design.recipient_id)).toEqual(before);
    expect(published).toEqual([]);
  });

  it("accepts an empty list and reports unknown parameters", async () => {
    const res = await s.api.post(s.realm.member, "/users/me/subscriptions/properties", { subscription_data: [], extra: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["extra"] });
  });
});
