/**
 * A real email address that the caller may not see must not be confirmable: every
 * endpoint that takes a user's email answers for it exactly as for a made-up address
 * (same status, same body once the address itself is blanked), and the dummy API email
 * `user{id}@{host}` keeps working.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { makeChannel, messageCounts } from "../support/messages.js";
import type { User } from "../../src/db/schema.js";
import { EmailVisibility } from "../../src/lib/roles.js";
import { dummyEmail } from "../../src/lib/users.js";
import { realmHost } from "../../src/lib/realm-host.js";

let s: TestServer;
let hidden: User;
let hiddenEmail: string;
const madeUp = "nobody-at-all@example.org";

beforeAll(async () => {
  s = await startTestServer();
  hidden = s.realm.other;
  hiddenEmail = hidden.delivery_email;
  await s.db.updateTable("users").set({ email_address_visibility: EmailVisibility.ADMINS }).where("id", "=", hidden.id).execute();
  await makeChannel(s, "lookups", { subscribers: [s.realm.member, s.realm.admin] });
});
afterAll(() => s?.close());

const apiEmailOfHidden = () => dummyEmail(hidden.id, realmHost(s.realm.realm.string_id, s.ctx.config.externalHost));

/** Status and body with the given address blanked out. */
function shape(res: LightMyRequestResponse, email: string): [number, unknown] {
  return [res.statusCode, JSON.parse(res.body.split(email).join("<email>"))];
}

async function expectSameAnswer(request: (email: string) => Promise<LightMyRequestResponse>): Promise<[number, unknown]> {
  const forHidden = shape(await request(hiddenEmail), hiddenEmail);
  const forMadeUp = shape(await request(madeUp), madeUp);
  expect(forHidden).toEqual(forMadeUp);
  expect(forHidden[0]).toBeGreaterThanOrEqual(400);
  return forHidden;
}

const subscriptionRows = () => s.db.selectFrom("subscriptions").selectAll().orderBy("id").execute();

describe("principals on /users/me/subscriptions are API emails", () => {
  it("POST: a hidden real address fails exactly like a made-up one, and changes nothing", async () => {
    const before = await subscriptionRows();
    const [, body] = await expectSameAnswer((email) =>
      s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "lookups" }], principals: [email] }),
    );
    expect(body).toEqual({
      result: "error",
      msg: "User not authorized to execute queries on behalf of '<email>'",
      code: "UNAUTHORIZED_PRINCIPAL",
      principal: "<email>",
    });
    expect(await subscriptionRows()).toEqual(before);
  });

  it("POST: administrators too name users by API email", async () => {
    const before = await subscriptionRows();
    await expectSameAnswer((email) => s.api.post(s.realm.admin, "/users/me/subscriptions", { subscriptions: [{ name: "lookups" }], principals: [email] }));
    expect(await subscriptionRows()).toEqual(before);
  });

  it("POST: the API email (dummy address, any case) finds the user", async () => {
    const body = expectSuccess(
      await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "lookups" }], principals: [apiEmailOfHidden().toUpperCase()] }),
    );
    expect(body.subscribed).toEqual({ [String(hidden.id)]: ["lookups"] });
  });

  it("DELETE: a hidden real address fails exactly like a made-up one, and changes nothing", async () => {
    const before = await subscriptionRows();
    await expectSameAnswer((email) => s.api.delete(s.realm.admin, "/users/me/subscriptions", { subscriptions: ["lookups"], principals: [email] }));
    expect(await subscriptionRows()).toEqual(before);
    const body = expectSuccess(await s.api.delete(s.realm.admin, "/users/me/subscriptions", { subscriptions: ["lookups"], principals: [apiEmailOfHidden()] }));
    expect(body.removed).toEqual(["lookups"]);
  });

  it("a public real address still works", async () => {
    const body = expectSuccess(
      await s.api.post(s.realm.member, "/users/me/subscriptions", { subscriptions: [{ name: "lookups" }], principals: [s.realm.guest.delivery_email] }),
    );
    expect(body.subscribed).toEqual({ [String(s.realm.guest.id)]: ["lookups"] });
  });
});

describe("other endpoints that take an email", () => {
  it("direct-message recipients", async () => {
    const before = await messageCounts(s);
    const [, body] = await expectSameAnswer((email) => s.api.post(s.realm.member, "/messages", { type: "direct", to: JSON.stringify([email]), content: "hi" }));
    expect(body).toEqual({ result: "error", msg: "Invalid email '<email>'", code: "BAD_REQUEST" });
    expect(await messageCounts(s)).toEqual(before);
    expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: JSON.stringify([apiEmailOfHidden()]), content: "hi" }));
  });

  it("GET /users/{email}", async () => {
    const [, body] = await expectSameAnswer((email) => s.api.get(s.realm.member, `/users/${encodeURIComponent(email)}`));
    expect(body).toEqual({ result: "error", msg: "No such user", code: "BAD_REQUEST" });
    expect(expectSuccess(await s.api.get(s.realm.member, `/users/${encodeURIComponent(apiEmailOfHidden())}`)).user.user_id).toBe(hidden.id);
  });

  it("GET /users/{email}/presence", async () => {
    await expectSameAnswer((email) => s.api.get(s.realm.member, `/users/${encodeURIComponent(email)}/presence`));
  });

  it("narrows by sender and direct-message partner", async () => {
    for (const operator of ["sender", "dm"]) {
      await expectSameAnswer((email) =>
        s.api.get(s.realm.member, "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator, operand: email }]) }),
      );
    }
  });
});
