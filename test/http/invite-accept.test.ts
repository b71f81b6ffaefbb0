import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { encodeParams, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";
import type { Channel } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import { listOutbox, readOutboxMessage } from "../../src/mail/outbox.js";
import { Role } from "../../src/lib/roles.js";
import { systemGroupIds } from "../../src/db/queries/user-groups.js";

let s: TestServer;
let dataDir: string;
let events: PublishedEvent[] = [];
let lobby: Channel;
let welcome: Channel;
let devs: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "parley-signup-"));
  s = await startTestServer({ dataDir });
  s.ctx.events.subscribe((e) => events.push(e));
  lobby = await createChannel(s, { name: "lobby", subscribers: [s.realm.member] });
  welcome = await createChannel(s, { name: "welcome", subscribers: [s.realm.owner] });
  await s.db.insertInto("default_channels").values({ realm_id: s.realm.realm.id, channel_id: welcome.id }).execute();
  const groups = await systemGroupIds(s.db, s.realm.realm.id);
  devs = (
    await s.db
      .insertInto("user_groups")
      .values({ realm_id: s.realm.realm.id, name: "devs", description: "", date_created: 0, can_manage_group_id: groups.get("role:administrators")!, can_add_members_group_id: groups.get("role:administrators")! })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
});
afterAll(async () => {
  await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  events = [];
});

const host = () => s.realm.host;
const page = (path: string, h = host()) => s.app.inject({ method: "GET", url: path, headers: { host: h } });
/** The browser's CSRF cookie and the form's token (Django accepts the bare secret as the token too). */
const CSRF_SECRET = "S".repeat(32);
const submit = (path: string, fields: Record<string, string>, h = host(), csrf: string | null = CSRF_SECRET) =>
  s.app.inject({
    method: "POST",
    url: path,
    headers: { host: h, "content-type": "application/x-www-form-urlencoded", cookie: `csrftoken=${CSRF_SECRET}` },
    payload: encodeParams(csrf === null ? fields : { csrfmiddlewaretoken: csrf, ...fields }),
  });
const userByEmail = (email: string) => s.db.selectFrom("users").selectAll().where("delivery_email", "=", email).executeTakeFirst();
const countUsers = async () => (await s.db.selectFrom("users").select("id").execute()).length;
const subscribedChannels = async (userId: number) =>
  (
    await s.db
      .selectFrom("subscriptions")
      .innerJoin("channels", "channels.recipient_id", "subscriptions.recipient_id")
      .select("channels.name")
      .where("subscriptions.user_id", "=", userId)
      .where("subscriptions.active", "=", 1)
      .execute()
  )
    .map((r) => r.name)
    .sort();
const botMessagesTo = async (content: string) => {
  const realm = await s.db.selectFrom("realms").selectAll().where("id", "=", s.realm.realm.id).executeTakeFirstOrThrow();
  return s.db.selectFrom("messages").select(["id", "content", "sender_id"]).where("sender_id", "=", realm.notification_bot_id!).where("content", "=", content).execute();
};

/** Invites by API and returns the link path found in the mail. */
async function inviteByMail(email: string, params: Record<string, unknown> = {}, inviter = s.realm.admin): Promise<string> {
  expectSuccess(await s.api.post(inviter, "/invites", { invitee_emails: email, stream_ids: [], ...params }));
  const entry = (await listOutbox(dataDir)).filter((m) => m.to === email).at(-1)!;
  const text = await readOutboxMessage(dataDir, entry.file);
  const url = /http:\/\/\S+\/join\/[a-z0-9]+\//.exec(text)![0];
  expect(url.startsWith(`http://${host()}/join/`)).toBe(true);
  return new URL(url).pathname;
}

describe("accepting an email invitation", () => {
  it("shows a form, then creates the account with the invited role, channels and groups, and tells the referrer", async () => {
    const path = await inviteByMail("ada@example.com", { stream_ids: [lobby.id], group_ids: [devs], invite_as: Role.MODERATOR });
    const form = await page(path);
    expect(form.statusCode).toBe(200);
    expect(form.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(form.body).toContain("Join Test Organization");
    expect(form.body).toContain("ada@example.com");
    expect(form.body).toContain('name="full_name"');
    expect(form.body).toContain('name="password"');
    expect(form.body).not.toContain('name="email"');

    expect(form.body).toMatch(/<input type="hidden" name="csrfmiddlewaretoken" value="[A-Za-z0-9]{64}">/);
    // A post without the form's token (a forged one from another site) creates nothing.
    const forged = await submit(path, { full_name: "Ada Lovelace", password: "analytical-engine" }, host(), null);
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain("CSRF token missing.");
    expect(await userByEmail("ada@example.com")).toBeUndefined();
    const done = await submit(path, { full_name: "Ada Lovelace", password: "analytical-engine" });
    // Signed in and sent to the web app.
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe("/");
    const sessionCookie = ([] as string[]).concat(done.headers["set-cookie"] ?? []).find((c) => c.startsWith("sessionid="))!;
    expect(sessionCookie).toContain("HttpOnly");
    const ada = (await userByEmail("ada@example.com"))!;
    const me = await s.app.inject({ method: "GET", url: "/json/users/me", headers: { host: host(), cookie: sessionCookie.split(";")[0] } });
    expect(me.json().user_id).toBe(ada.id);
    expect(ada).toMatchObject({ full_name: "Ada Lovelace", role: Role.MODERATOR, is_active: 1, is_bot: 0 });
    // Only the invitation's channels: include_realm_default_subscriptions was false.
    expect(await subscribedChannels(ada.id)).toEqual(["lobby"]);
    const member = await s.db.selectFrom("user_group_members").select("user_id").where("group_id", "=", devs).where("user_id", "=", ada.id).execute();
    expect(member).toHaveLength(1);
    expect(events.some((e) => e.event.type === "user_group" && e.event.op === "add_members" && e.event.group_id === devs)).toBe(true);
    expect(events.some((e) => e.event.type === "realm_user" && e.event.op === "add")).toBe(true);
    expect(events.some((e) => e.event.type === "invites_changed")).toBe(true);
    const notice = await botMessagesTo(`@_**Ada Lovelace|${ada.id}** accepted your invitation to join Parley!`);
    expect(notice).toHaveLength(1);
    const seen = await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", notice[0]!.id).execute();
    expect(seen.map((r) => r.user_id)).toContain(s.realm.admin.id);
    // The new account can log in with its password.
    expectSuccess(await s.api.post(null, "/fetch_api_key", { username: "ada@example.com", password: "analytical-engine" }));
    // The invitation is used up: the link no longer works and it left the list.
    expect((await page(path)).statusCode).toBe(404);
    const listed = expectSuccess(await s.api.get(s.realm.admin, "/invites")).invites;
    expect(listed.some((i: any) => i.email === "ada@example.com")).toBe(false);
  });

  it("subscribes to the default channels when asked, skips the notice when not, and delivers the welcome text", async () => {
    const path = await inviteByMail("bob@example.com", { include_realm_default_subscriptions: true, notify_referrer_on_join: false, welcome_message_custom_text: "Glad you are here, Bob." });
    expect((await submit(path, { full_name: "Bob Builder", password: "can-we-fix-it" })).statusCode).toBe(303);
    const bob = (await userByEmail("bob@example.com"))!;
    expect(bob.role).toBe(Role.MEMBER);
    expect(await subscribedChannels(bob.id)).toEqual(["general", "welcome"]);
    expect(await botMessagesTo(`@_**Bob Builder|${bob.id}** accepted your invitation to join Parley!`)).toEqual([]);
    const welcomeText = await botMessagesTo("Glad you are here, Bob.");
    expect(welcomeText).toHaveLength(1);
    const to = await s.db.selectFrom("user_messages").select("user_id").where("message_id", "=", welcomeText[0]!.id).execute();
    expect(to.map((r) => r.user_id)).toContain(bob.id);
  });

  it("refuses bad input with the form again and creates nothing", async () => {
    const path = await inviteByMail("cy@example.com");
    const before = await countUsers();
    const weak = await submit(path, { full_name: "Cy Young", password: "123" });
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toContain("The password is too weak.");
    expect(weak.body).toContain('value="Cy Young"');
    const noName = await submit(path, { full_name: " ", password: "long-enough" });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toContain("Name too short!");
    const xss = await submit(path, { full_name: "<script>", password: "x" });
    expect(xss.body).not.toContain("<script>");
    expect(await countUsers()).toBe(before);
    // The link still works afterwards.
    expect((await submit(path, { full_name: "Cy Young", password: "long-enough" })).statusCode).toBe(303);
  });

  it("refuses expired, revoked, unknown and other organizations' links", async () => {
    const expired = await inviteByMail("exp@example.com", { invite_expires_in_minutes: 1 });
    const key = expired.split("/")[2]!;
    await s.db.updateTable("invites").set({ expires_at: Math.floor(Date.now() / 1000) - 1 }).where("link_key", "=", key).execute();
    const revoked = await inviteByMail("rev@example.com");
    const id = (await s.db.selectFrom("invites").select("id").where("email", "=", "rev@example.com").executeTakeFirstOrThrow()).id;
    expectSuccess(await s.api.delete(s.realm.admin, `/invites/${id}`));
    const never = await inviteByMail("never@example.com", { invite_expires_in_minutes: null });
    const before = await countUsers();
    for (const [path, h] of [
      [expired, host()],
      [revoked, host()],
      ["/join/doesnotexist0000000000/", host()],
      [never, s.other.host],
    ] as const) {
      const get = await page(path, h);
      expect(get.statusCode).toBe(404);
      expect(get.body).toContain("This invitation link has expired or has been revoked.");
      const post = await submit(path, { full_name: "Late Comer", password: "long-enough" }, h);
      expect(post.statusCode).toBe(404);
    }
    expect(await countUsers()).toBe(before);
    // A link that never expires works.
    expect((await submit(never, { full_name: "Nev Er", password: "long-enough" })).statusCode).toBe(303);
  });
});

describe("accepting a reusable link", () => {
  it("asks for the email address and works for several people until revoked", async () => {
    const res = expectSuccess(await s.api.post(s.realm.admin, "/invites/multiuse", { stream_ids: [lobby.id], invite_as: Role.GUEST }));
    const path = new URL(res.invite_link).pathname;
    expect((await page(path)).body).toContain('name="email"');
    const before = await countUsers();
    const bad = await submit(path, { email: "nope", full_name: "No Body", password: "long-enough" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Enter a valid email address.");
    const taken = await submit(path, { email: s.realm.member.delivery_email, full_name: "Dupe Person", password: "long-enough" });
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toContain(`Email '${s.realm.member.delivery_email}' already in use`);
    expect(await countUsers()).toBe(before);
    // A pending email invitation to the same address is used up by the link's sign-up.
    await inviteByMail("G2@example.com");
    for (const email of ["g1@example.com", "G2@Example.com"]) {
      expect((await submit(path, { email, full_name: "Guest Person", password: "long-enough" })).statusCode).toBe(303);
    }
    const g2 = (await userByEmail("g2@example.com"))!;
    expect(g2.role).toBe(Role.GUEST);
    expect(await subscribedChannels(g2.id)).toEqual(["lobby"]);
    expect((await s.db.selectFrom("invites").select("status").where("email", "=", "G2@example.com").executeTakeFirstOrThrow()).status).toBe(1);
    const id = (await s.db.selectFrom("invites").select("id").where("link_key", "=", path.split("/")[2]!).executeTakeFirstOrThrow()).id;
    expectSuccess(await s.api.delete(s.realm.admin, `/invites/multiuse/${id}`));
    expect((await submit(path, { email: "g3@example.com", full_name: "Guest Three", password: "long-enough" })).statusCode).toBe(404);
  });
});
