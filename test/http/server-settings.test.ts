import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess, injectChecked } from "../support/client.js";
import { CHAT_FEATURE_LEVEL, CHAT_VERSION } from "../../src/lib/server-version.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const md5 = (t: string) => crypto.createHash("md5").update(t).digest("hex");

describe("GET /server_settings", () => {
  it("answers without credentials, every field in upstream order", async () => {
    const body = expectSuccess(await s.api.get(null, "/server_settings"));
    expect(Object.keys(body)).toEqual([
      "result", "msg", "authentication_methods", "chat_version", "chat_merge_base", "chat_feature_level",
      "push_notifications_enabled", "is_incompatible", "email_auth_enabled", "require_email_format_usernames",
      "realm_url", "realm_uri", "realm_name", "realm_icon", "realm_description", "realm_web_public_access_enabled",
      "external_authentication_methods",
    ]);
    expect(body).toMatchObject({
      chat_version: CHAT_VERSION,
      chat_merge_base: CHAT_VERSION,
      chat_feature_level: 416,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_url: "http://testserver.local",
      realm_uri: "http://testserver.local",
      realm_name: "Test Organization",
      realm_icon: `https://secure.gravatar.com/avatar/${md5("")}?d=identicon`,
      realm_description: "",
      realm_web_public_access_enabled: false,
      external_authentication_methods: [],
    });
    expect(CHAT_FEATURE_LEVEL).toBe(416);
    expect(Object.keys(body.authentication_methods)).toEqual([
      "password", "dev", "email", "ldap", "remoteuser", "github", "azuread", "gitlab", "google", "apple", "saml", "openid connect",
    ]);
    expect(body.authentication_methods.password).toBe(true);
  });

  it("ignores credentials, even invalid ones, and never reports parameters", async () => {
    const bad = await s.api.get({ ...s.realm.member, api_key: "short" }, "/server_settings", { junk: "1" });
    const body = expectSuccess(bad);
    expect(body.realm_name).toBe("Test Organization");
    const other = await s.api.get(null, "/server_settings", {}, { headers: { authorization: "Bearer abc" } });
    expectSuccess(other);
  });

  it("describes the realm of the request's host", async () => {
    await s.db.updateTable("realms").set({ description: "Welcome <here>", icon_url: "https://img.example.com/i.png" }).where("id", "=", s.other.realm.id).execute();
    const body = expectSuccess(await s.api.get(null, "/server_settings", {}, { host: s.other.host }));
    expect(body).toMatchObject({
      realm_url: "http://other.testserver.local",
      realm_name: "Other Organization",
      realm_icon: "https://img.example.com/i.png",
      realm_description: "<p>Welcome &lt;here&gt;</p>",
    });
  });

  it("reports an incompatible client from its User-Agent", async () => {
    const res = await s.api.get(null, "/server_settings", {}, { headers: { "user-agent": "ParleyInvalid/1.0" } });
    expect(expectSuccess(res).is_incompatible).toBe(true);
    const ok = await s.api.get(null, "/server_settings", {}, { headers: { "user-agent": "ParleyMobile/27.0" } });
    expect(expectSuccess(ok).is_incompatible).toBe(false);
  });

  it("enables public access only with the option and a web-public channel", async () => {
    const realmId = s.realm.realm.id;
    await s.db.updateTable("realms").set({ enable_spectator_access: 1 }).where("id", "=", realmId).execute();
    expect(expectSuccess(await s.api.get(null, "/server_settings")).realm_web_public_access_enabled).toBe(false);
    await s.db
      .insertInto("channels")
      .values({ realm_id: realmId, name: "public square", is_web_public: 1, date_created: 0 })
      .execute();
    expect(expectSuccess(await s.api.get(null, "/server_settings")).realm_web_public_access_enabled).toBe(true);
    await s.db.updateTable("realms").set({ enable_spectator_access: 0 }).where("id", "=", realmId).execute();
    expect(expectSuccess(await s.api.get(null, "/server_settings")).realm_web_public_access_enabled).toBe(false);
  });

  it("rejects an unknown subdomain", async () => {
    // As upstream: a plain 400 here (fetch_api_key answers 404 NONEXISTENT_SUBDOMAIN).
    const res = await s.api.get(null, "/server_settings", {}, { host: "nowhere.testserver.local" });
    expectError(res, "Invalid subdomain");
  });

  it("answers on the root domain before any default organization exists, without the organization's fields", async () => {
    // The default organization ("") moved away: the root domain now names none.
    const realmId = s.realm.realm.id;
    await s.db.updateTable("realms").set({ string_id: "moved" }).where("id", "=", realmId).execute();
    try {
      const body = expectSuccess(await s.api.get(null, "/server_settings"));
      expect(Object.keys(body)).toEqual([
        "result", "msg", "authentication_methods", "chat_version", "chat_merge_base", "chat_feature_level",
        "push_notifications_enabled", "is_incompatible", "email_auth_enabled", "require_email_format_usernames",
        "realm_url", "realm_uri", "realm_web_public_access_enabled", "external_authentication_methods",
      ]);
      expect(body).toMatchObject({ realm_url: "http://testserver.local", realm_uri: "http://testserver.local", realm_web_public_access_enabled: false, chat_feature_level: CHAT_FEATURE_LEVEL });
      // A subdomain naming no organization is still refused.
      expectError(await s.api.get(null, "/server_settings", {}, { host: "nowhere.testserver.local" }), "Invalid subdomain");
      // Other public routes still need an organization.
      const login = await s.api.post(null, "/fetch_api_key", { username: "a@b.test", password: "x" });
      expect(login.statusCode).toBe(404);
    } finally {
      await s.db.updateTable("realms").set({ string_id: "" }).where("id", "=", realmId).execute();
    }
  });

  it("supports only GET (and HEAD)", async () => {
    const res = await s.api.post(null, "/server_settings");
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ result: "error", msg: "Method Not Allowed", allowed_methods: ["GET", "HEAD"] });
    const head = await injectChecked(s.app, { method: "HEAD", url: "/api/v1/server_settings", headers: { host: "testserver.local" } });
    expect(head.statusCode).toBe(200);
  });
});
