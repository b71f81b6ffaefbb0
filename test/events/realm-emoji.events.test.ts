import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { verifyAction } from "../support/events.js";
import { expectSuccess } from "../support/client.js";
import { animatedGif, pngImage, postFiles } from "../support/multipart.js";

let s: TestServer;
/** Only this family's state: the full register answer trips the contract check on other families' keys. */
const ONLY_EMOJI = { fetch_event_types: ["realm_emoji"] };
beforeAll(async () => {
  s = await startTestServer();
  await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name: "wave_hi", file_name: "w.png", author_id: s.realm.owner.id }).execute();
});
afterAll(() => s.close());

describe("realm_emoji events keep /register state current", () => {
  it("deactivating a custom emoji", async () => {
    await verifyAction(s, s.realm.member, () => s.api.delete(s.realm.owner, "/realm/emoji/wave_hi").then(expectSuccess), ONLY_EMOJI);
  });

  it("uploading a still custom emoji", async () => {
    const png = await pngImage();
    await verifyAction(s, s.realm.guest, () => postFiles(s, s.realm.member, "/realm/emoji/new_one", [{ field: "f1", filename: "a.png", content: png }]).then(expectSuccess), ONLY_EMOJI);
  });

  it("uploading an animated custom emoji (still_url set)", async () => {
    const gif = await animatedGif();
    const events = await verifyAction(s, s.realm.member, () => postFiles(s, s.realm.admin, "/realm/emoji/moving", [{ field: "file", filename: "a.gif", content: gif }]).then(expectSuccess), ONLY_EMOJI);
    const records = Object.values(events[0].realm_emoji as Record<string, { name: string; still_url: string | null }>);
    expect(records.find((r) => r.name === "moving")?.still_url).toMatch(/\/emoji\/images\/still\/[0-9a-f]{16}\.png$/);
  });
});
