import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import { makeChannel, sendChannelMessage, sendDirectMessage } from "../support/messages.js";
import type { User } from "../../src/db/schema.js";

let s: TestServer;
let mods: { id: number };

beforeAll(async () => {
  s = await startTestServer();
  const { owner, admin, member, other } = s.realm;
  mods = await makeChannel(s, "moderators", { subscribers: [owner, admin], invite_only: true });
  await makeChannel(s, "lounge", { subscribers: [owner, member, other] });
  await makeChannel(s, "vault", { subscribers: [owner], invite_only: true });
});
afterAll(() => s.close());

const report = (user: User, id: number, params: Record<string, unknown>) => s.api.post(user, `/messages/${id}/report`, params);
const messageCount = async () => (await s.db.selectFrom("messages").select("id").execute()).length;
const latestIn = (channelId: number) => s.db.selectFrom("messages").selectAll().where("channel_id", "=", channelId).orderBy("id", "desc").executeTakeFirstOrThrow();
const setChannel = (id: number | null) => s.db.updateTable("realms").set({ moderation_request_channel_id: id }).where("id", "=", s.realm.realm.id).execute();

async function expectReportError(user: User, id: number, params: Record<string, unknown>, msg: string, code = "BAD_REQUEST") {
  const n = await messageCount();
  expectError(await report(user, id, params), msg, { code });
  expect(await messageCount()).toBe(n);
}

describe("POST /messages/{message_id}/report", () => {
  it("refuses when no moderation request channel is configured", async () => {
    const id = await sendChannelMessage(s, s.realm.other, "lounge", "t", "bad words");
    await expectReportError(s.realm.member, id, { report_type: "spam" }, "Message reporting is not enabled in this organization.");
  });

  it("posts the report in the moderation channel and confirms it to the reporter", async () => {
    const { member, other } = s.realm;
    await setChannel(mods.id);
    const id = await sendChannelMessage(s, other, "lounge", "chat", "buy cheap stuff");
    const sent = (await s.db.selectFrom("messages").select("date_sent").where("id", "=", id).executeTakeFirstOrThrow()).date_sent;
    expect(expectSuccess(await report(member, id, { report_type: "spam", description: "Again." }))).toEqual({ result: "success", msg: "" });
    const notice = await latestIn(mods.id);
    const bot = (await s.db.selectFrom("realms").select("notification_bot_id").where("id", "=", s.realm.realm.id).executeTakeFirstOrThrow()).notification_bot_id;
    expect(notice.sender_id).toBe(bot);
    expect(notice.topic).toBe("Otto Other moderation");
    const time = new Date(sent * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00");
    expect(notice.content).toBe(
      `@_**Mary Member|${member.id}** reported a message sent by @_**Otto Other|${other.id}** at <time:${time}>.\n` +
        "```quote\n**Spam**. Again.\n```\n\n" +
        `\`\`\` spoiler Original message at #**lounge>chat@${id}**\nbuy cheap stuff\n\`\`\``,
    );
    const confirmation = await s.db.selectFrom("messages").selectAll().where("sender_id", "=", notice.sender_id).where("channel_id", "is", null).orderBy("id", "desc").executeTakeFirstOrThrow();
    expect(confirmation.content).toMatch(new RegExp(`^You reported \\[a message\\]\\(http://[^)]+/#narrow/channel/\\d+-lounge/topic/chat/near/${id}\\) for spam\\.$`));
  });

  it("direct messages: the header names the recipients; the link is the conversation's", async () => {
    const { member, other, owner } = s.realm;
    const group = await sendDirectMessage(s, other, [member, owner], "group\n```` fence");
    expectSuccess(await report(member, group, { report_type: "other", description: "  " }));
    const notice = await latestIn(mods.id);
    expect(notice.content).toContain(`reported a message sent by @_**Otto Other|${other.id}** to @_**Olivia Owner|${owner.id}** and @_**Mary Member|${member.id}** at`);
    expect(notice.content).toContain("**Other reason**.   \n");
    expect(notice.content).toContain("````` spoiler [Original message](");
    const ids = [member.id, other.id, owner.id].sort((a, b) => a - b).join(",");
    expect(notice.content).toContain(`/#narrow/dm/${ids}-group/near/${group}`);
    const own = await sendDirectMessage(s, member, [other], "my own words");
    expectSuccess(await report(member, own, { report_type: "norms" }));
    expect((await latestIn(mods.id)).content).toContain(`reported a message sent by @_**Mary Member|${member.id}** to @_**Otto Other|${other.id}** at`);
  });

  it("validates type and description, then the channel, then access", async () => {
    const { member, other, owner } = s.realm;
    const id = await sendChannelMessage(s, other, "lounge", "t", "meh");
    const vault = await sendChannelMessage(s, owner, "vault", "t", "private");
    const dm = await sendDirectMessage(s, owner, [other], "not for member");
    await expectReportError(member, id, {}, "Missing 'report_type' argument", "REQUEST_VARIABLE_MISSING");
    await expectReportError(member, id, { report_type: "rude" }, "Invalid report_type: Value error, Not in the list of possible values");
    await expectReportError(member, id, { report_type: "other" }, "An explanation is required.");
    await expectReportError(member, id, { report_type: "other", description: "" }, "An explanation is required.");
    await expectReportError(member, id, { report_type: "spam", description: "x".repeat(1001) }, "description is too long (limit: 1000 characters)");
    await expectReportError(member, vault, { report_type: "spam" }, "Invalid message(s)");
    await expectReportError(member, dm, { report_type: "spam" }, "Invalid message(s)");
    await expectReportError(member, 999999, { report_type: "spam" }, "Invalid message(s)");
    await expectReportError(s.other.member, id, { report_type: "spam" }, "Message reporting is not enabled in this organization.");
    await setChannel(null);
    await expectReportError(member, vault, { report_type: "spam" }, "Message reporting is not enabled in this organization.");
    await setChannel(mods.id);
  });
});
