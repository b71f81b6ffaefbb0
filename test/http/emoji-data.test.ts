/** The server's emoji data file, named by /register's server_emoji_data_url. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectSuccess } from "../support/client.js";
import { emojiByName, isValidEmojiCode } from "../../src/lib/emoji.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("server_emoji_data_url", () => {
  it("is an absolute URL on the realm's host; the file maps every accepted code to its names, canonical first", async () => {
    const state = expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm"] }));
    const url = new URL(state.server_emoji_data_url as string);
    expect(url.origin).toBe(`http://${s.realm.host}`);
    expect(url.pathname).toMatch(/^\/static\/generated\/emoji\/emoji_api\.[0-9a-f]{16}\.json$/);
    const res = await s.app.inject({ method: "GET", url: url.pathname, headers: { host: s.realm.host } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const { code_to_names: codeToNames } = res.json() as { code_to_names: Record<string, string[]> };
    expect(Object.keys(res.json())).toEqual(["code_to_names"]);
    // Upstream's canonical names where they differ from emoji-datasource's.
    expect(codeToNames["1f642"][0]).toBe("smile");
    expect(codeToNames["1f44d"]).toEqual(expect.arrayContaining(["+1", "thumbs_up", "like"]));
    expect(codeToNames["1f44d"][0]).toBe("+1");
    for (const [code, names] of Object.entries(codeToNames)) {
      expect(isValidEmojiCode(code)).toBe(true);
      for (const name of names) expect(emojiByName(name)?.code, name).toBe(code);
      expect(new Set(names).size).toBe(names.length);
    }
    // No credentials needed (a static file), the same on every host.
    const other = await s.app.inject({ method: "GET", url: url.pathname, headers: { host: s.other.host } });
    expect(other.body).toBe(res.body);
  });

  it("answers 404 for any other file name", async () => {
    for (const name of ["emoji_api.0000000000000000.json", "emoji_api.json", "..%2Fpackage.json"]) {
      const res = await s.app.inject({ method: "GET", url: `/static/generated/emoji/${name}`, headers: { host: s.realm.host } });
      expect(res.statusCode).toBe(404);
    }
  });
});
