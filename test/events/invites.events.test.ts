import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { verifyAction } from "../support/events.js";
import { formToken, TestBrowser } from "../support/browser.js";

let s: TestServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-invite-events-"));
  s = await startTestServer({ dataDir });
});
afterAll(async () => {
  await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("invites_changed", () => {
  it("reaches administrators and the referrer's queues as upstream's bare event; others get nothing", async () => {
    const params = { event_types: ["invites_changed"] };
    const invite = async () => expectSuccess(await s.api.post(s.realm.member, "/invites", { invitee_emails: `q${Math.random()}@example.com`.replace("0.", ""), stream_ids: [] }));
    for (const user of [s.realm.admin, s.realm.member]) {
      const events = await verifyAction(s, user, invite, params);
      expect(events).toEqual([{ type: "invites_changed", id: expect.any(Number) }]);
    }
    expect(await verifyAction(s, s.realm.moderator, invite, params)).toEqual([]);
    expect(await verifyAction(s, s.other.admin, invite, params)).toEqual([]);
  });
});

describe("signing up through an invitation", () => {
  it("keeps another user's full /register state current (new user, groups, subscribers)", async () => {
    const groupId = expectSuccess(await s.api.post(s.realm.owner, "/user_groups/create", { name: "signup-crew", description: "", members: [] })).group_id as number;
    const general = await s.db.selectFrom("channels").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", "general").executeTakeFirstOrThrow();
    expectSuccess(await s.api.post(s.realm.owner, "/invites", { invitee_emails: "joiner@example.com", stream_ids: [general.id], group_ids: [groupId] }));
    const key = (await s.db.selectFrom("invites").select("link_key").where("email", "=", "joiner@example.com").executeTakeFirstOrThrow()).link_key!;
    // The referrer: they also get the notification bot's direct message.
    const events = await verifyAction(
      s,
      s.realm.owner,
      async () => {
        // As a browser signs up: the form's CSRF token, then the post, which signs them in.
        const browser = new TestBrowser(s.app, s.realm.host);
        const form = await browser.request("GET", `/join/${key}/`);
        const res = await browser.request("POST", `/join/${key}/`, { form: { csrfmiddlewaretoken: formToken(form.body), full_name: "Jo Iner", password: "long-enough" } });
        expect(res.statusCode, res.body).toBe(303);
      },
      { include_subscribers: true },
    );
    const types = events.map((e) => `${e.type}${e.op ? `:${e.op}` : ""}`);
    expect(types).toEqual(expect.arrayContaining(["realm_user:add", "user_group:add_members", "subscription:peer_add", "invites_changed", "message"]));
  });
});
