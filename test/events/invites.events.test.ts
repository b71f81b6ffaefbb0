import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { verifyAction } from "../support/events.js";

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
