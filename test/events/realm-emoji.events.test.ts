import { afterAll, beforeAll, describe, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name: "wave_hi", file_name: "w.png", author_id: s.realm.owner.id }).execute();
});
afterAll(() => s.close());

describe("realm_emoji events keep /register state current", () => {
  it("deactivating a custom emoji", async () => {
    await verifyAction(s, s.realm.member, () => s.api.delete(s.realm.owner, "/realm/emoji/wave_hi").then(expectSuccess));
  });
});
