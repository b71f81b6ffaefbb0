/** POST /messages/render: the compose preview, rendered as a sent message would be; nothing stored. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { createChannel } from "../support/channels.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const render = (content: unknown, user = s.realm.member) => s.api.post(user, "/messages/render", { content });
const messageCount = async () => (await s.db.selectFrom("messages").select("id").execute()).length;

describe("POST /messages/render", () => {
  it("renders Markdown exactly as the message would be stored, storing nothing", async () => {
    const before = await messageCount();
    expect(expectSuccess(await render("**foo**")).rendered).toBe("<p><strong>foo</strong></p>");
    // The same content sent: the stored rendering is the preview's.
    const content = "Hi @**Otto Other**, see https://example.com and :smile:\n\n```\ncode\n```";
    const preview = expectSuccess(await render(content)).rendered as string;
    const { id } = expectSuccess(await s.api.post(s.realm.member, "/messages", { type: "direct", to: [s.realm.other.id], content }));
    const stored = await s.db.selectFrom("messages").select("rendered_content").where("id", "=", id).executeTakeFirstOrThrow();
    expect(preview).toBe(stored.rendered_content);
    expect(preview).toContain(`<span class="user-mention" data-user-id="${s.realm.other.id}">@Otto Other</span>`);
    expect(await messageCount()).toBe(before + 1);
  });

  it("applies the organization's linkifiers and links channels", async () => {
    expectSuccess(await s.api.post(s.realm.admin, "/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example/{id}" }));
    const channel = await createChannel(s, { name: "render-room", subscribers: [s.realm.member], creator: s.realm.owner });
    const html = expectSuccess(await render("fixes #123 in #**render-room**")).rendered as string;
    expect(html).toBe(
      `<p>fixes <a href="https://tracker.example/123">#123</a> in <a class="stream" data-stream-id="${channel.id}" href="/#narrow/channel/${channel.id}-render-room">#render-room</a></p>`,
    );
  });

  it("truncates past the organization's message length, as sending does", async () => {
    await s.db.updateTable("realms").set({ max_message_length: 30 }).where("id", "=", s.realm.realm.id).execute();
    try {
      expect(expectSuccess(await render("x".repeat(40))).rendered).toBe("<p>xxxxxxxxxx<br>\n[message truncated]</p>");
    } finally {
      await s.db.updateTable("realms").set({ max_message_length: 10000 }).where("id", "=", s.realm.realm.id).execute();
    }
  });

  it("refuses what sending refuses", async () => {
    expectError(await render("   \n "), "Message must not be empty");
    expectError(await s.api.post(s.realm.member, "/messages/render", {}), "Missing 'content' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await s.api.post(null, "/messages/render", { content: "x" }), "Not logged in: API authentication or user session required", { status: 401, code: "UNAUTHORIZED" });
  });
});
