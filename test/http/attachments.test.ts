import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/server.js";
import { storedAttachmentBytes } from "../support/stored-files.js";
import { basicAuth, expectError, expectSuccess, injectChecked } from "../support/client.js";
import { makeChannel, sendChannelMessage } from "../support/messages.js";
import type { User } from "../../src/db/schema.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let published: PublishedEvent[] = [];

beforeAll(async () => {
  s = await startTestServer({ maxFileUploadMib: 1 });
  s.ctx.events.subscribe((p) => published.push(p));
  const { owner, member, other } = s.realm;
  await makeChannel(s, "public-room", { subscribers: [owner, member, other] });
  await makeChannel(s, "private-room", { subscribers: [owner, member], invite_only: true });
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const host = (user: User) => s.api.hosts.get(user.realm_id)!;

function multipart(files: Array<{ field: string; name: string; type: string; data: Buffer }>, fields: Array<[string, string]> = []) {
  const boundary = "uploadboundary";
  const parts: Buffer[] = [];
  for (const [k, v] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`));
    parts.push(f.data, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(user: User, files: Parameters<typeof multipart>[0], fields: Array<[string, string]> = []) {
  const body = multipart(files, fields);
  return injectChecked(s.app, {
    method: "POST",
    url: "/api/v1/user_uploads",
    headers: { host: host(user), authorization: basicAuth(user), "content-type": body.contentType },
    payload: body.payload,
  });
}

const fetchFile = (user: User | null, url: string) =>
  s.app.inject({ method: "GET", url, headers: { host: host(s.realm.owner), ...(user ? { authorization: basicAuth(user) } : {}) } });
const attachmentCount = async () => Number((await s.db.selectFrom("attachments").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);

describe("POST /user_uploads", () => {
  it("stores the file (under the data folder, or in the database on PostgreSQL) and answers uri, url and the sanitized filename; an attachment event to the uploader", async () => {
    const { member } = s.realm;
    const data = Buffer.from("hello, file");
    const body = expectSuccess(await upload(member, [{ field: "file", name: "my report (final)!.txt", type: "text/plain", data }]));
    expect(body.filename).toBe("my-report-final.txt");
    expect(body.uri).toBe(body.url);
    expect(body.url).toMatch(new RegExp(`^/user_uploads/${member.realm_id}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/my-report-final\\.txt$`));
    expect(await storedAttachmentBytes(s.ctx, body.url.slice("/user_uploads/".length))).toEqual(data);
    // In the data folder, where earlier releases put it: {data}/uploads/{path_id}.
    const onDisk = join(s.ctx.config.dataDir, "uploads", body.url.slice("/user_uploads/".length));
    expect(existsSync(onDisk) ? readFileSync(onDisk) : null).toEqual(s.ctx.config.fileStorage === "folder" ? data : null);
    expect(published).toHaveLength(1);
    expect(published[0].userIds).toEqual([member.id]);
    expect(published[0].event).toMatchObject({ type: "attachment", op: "add", attachment: { name: "my-report-final.txt", size: data.length, messages: [] } });
    // The uploader reads it back through the web path, with the stored type.
    const res = await fetchFile(member, body.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain");
    expect(res.rawPayload).toEqual(data);
  });

  it("refuses no file, several files and a file over the configured size, storing nothing", async () => {
    const { member } = s.realm;
    const before = await attachmentCount();
    expectError(await upload(member, [], [["x", "y"]]), "You must specify a file to upload");
    const f = { field: "a", name: "a.txt", type: "text/plain", data: Buffer.from("a") };
    expectError(await upload(member, [f, { ...f, field: "b" }]), "You may only upload one file at a time");
    const big = { ...f, data: Buffer.alloc(1024 * 1024 + 1, 120) };
    expectError(await upload(member, [big]), "File is larger than this server's configured maximum upload size (1 MiB).");
    expect(await attachmentCount()).toBe(before);
  });
});

describe("reading uploads", () => {
  it("a file linked from a private-channel message: the channel's members read it, others get 403", async () => {
    const { owner, member, other } = s.realm;
    const { url } = expectSuccess(await upload(owner, [{ field: "file", name: "secret.png", type: "image/png", data: Buffer.from("PNGDATA") }]));
    // Before any message links it, only the uploader can read it.
    expect((await fetchFile(member, url)).statusCode).toBe(403);
    await sendChannelMessage(s, owner, "private-room", "files", `[secret.png](${url})`);
    expect((await fetchFile(owner, url)).statusCode).toBe(200);
    const asMember = await fetchFile(member, url);
    expect(asMember.statusCode).toBe(200);
    expect(asMember.headers["content-disposition"]).toMatch(/^inline/);
    expect((await fetchFile(other, url)).statusCode).toBe(403);
    // Another organization's user, on their own host, cannot reach it either.
    const foreign = await s.app.inject({ method: "GET", url, headers: { host: s.api.hosts.get(s.other.owner.realm_id)!, authorization: basicAuth(s.other.owner) } });
    expect(foreign.statusCode).toBe(404);
    // No credentials: 401.
    expect((await fetchFile(null, url)).statusCode).toBe(401);
    // Other links to the file (forwarded by someone who cannot read it) grant nothing.
    await sendChannelMessage(s, other, "public-room", "files", `look [here](${url})`);
    expect((await fetchFile(other, url)).statusCode).toBe(403);
  });

  it("a file linked from a public-channel message is readable by the organization; unknown paths are 404", async () => {
    const { member, other } = s.realm;
    const { url } = expectSuccess(await upload(member, [{ field: "file", name: "notes.bin", type: "application/x-thing", data: Buffer.from([1, 2, 3]) }]));
    await sendChannelMessage(s, member, "public-room", "files", `[notes](${url})`);
    const res = await fetchFile(other, url);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/octet-stream");
    expect(res.headers["content-disposition"]).toMatch(/^attachment/);
    expect((await fetchFile(other, url + "x")).statusCode).toBe(404);
  });

  it("GET /api/v1/user_uploads/…: a temporary URL that works without credentials", async () => {
    const { member, other } = s.realm;
    const { url } = expectSuccess(await upload(member, [{ field: "file", name: "t.txt", type: "text/plain", data: Buffer.from("temp") }]));
    const path = url.slice("/user_uploads".length);
    const body = expectSuccess(await s.api.get(member, `/user_uploads${path}`));
    expect(body.url).toMatch(/^\/user_uploads\/temporary\/[^/]+\/t\.txt$/);
    const res = await fetchFile(null, body.url);
    expect(res.statusCode).toBe(200);
    expect(res.payload).toBe("temp");
    expect((await fetchFile(null, body.url.replace("/temporary/", "/temporary/x"))).statusCode).toBe(404);
    expectError(await s.api.get(other, `/user_uploads${path}`), "You are not authorized to view this file.", { status: 403 });
    expectError(await s.api.get(other, `/user_uploads${path}nope`), "File not found", { status: 404 });
  });
});

describe("links recorded on edit, and the register fields", () => {
  it("editing a message to link a file grants its readers access", async () => {
    const { member, other } = s.realm;
    const { url } = expectSuccess(await upload(member, [{ field: "file", name: "later.txt", type: "text/plain", data: Buffer.from("later") }]));
    const id = await sendChannelMessage(s, member, "public-room", "edits", "no link yet");
    expect((await fetchFile(other, url)).statusCode).toBe(403);
    expectSuccess(await s.api.patch(member, `/messages/${id}`, { content: `now [linked](${url})` }));
    expect((await fetchFile(other, url)).statusCode).toBe(200);
    const row = await s.db.selectFrom("messages").select("has_attachment").where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.has_attachment).toBe(1);
  });

  it("POST /register reports the configured upload size", async () => {
    const state = expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm"] }));
    expect(state.max_file_upload_size_mib).toBe(1);
    expect(state.realm_upload_quota_mib).toBeNull();
  });
});

describe("GET /attachments and DELETE /attachments/{id}", () => {
  it("lists one's own uploads with the messages linking them, and deletes them", async () => {
    const { owner, member } = s.realm;
    const { url } = expectSuccess(await upload(owner, [{ field: "file", name: "list.txt", type: "text/plain", data: Buffer.from("12345") }]));
    const messageId = await sendChannelMessage(s, owner, "public-room", "files", `[list](${url})`);
    const body = expectSuccess(await s.api.get(owner, "/attachments"));
    const entry = body.attachments.find((a: { path_id: string }) => url.endsWith(a.path_id));
    expect(entry).toEqual({ id: expect.any(Number), name: "list.txt", path_id: url.slice("/user_uploads/".length), size: 5, create_time: expect.any(Number), messages: [{ id: messageId, date_sent: expect.any(Number) }] });
    expect(typeof body.upload_space_used).toBe("number");
    expect(expectSuccess(await s.api.get(member, "/attachments")).attachments.some((a: { id: number }) => a.id === entry.id)).toBe(false);

    expectError(await s.api.delete(member, `/attachments/${entry.id}`), "Invalid attachment");
    expectError(await s.api.delete(owner, "/attachments/999999"), "Invalid attachment");
    expect((await fetchFile(owner, url)).statusCode).toBe(200);
    published = [];
    expectSuccess(await s.api.delete(owner, `/attachments/${entry.id}`));
    expect(published.map((p) => p.event)).toEqual([{ type: "attachment", op: "remove", attachment: { id: entry.id }, upload_space_used: expect.any(Number) }]);
    expect((await fetchFile(owner, url)).statusCode).toBe(404);
    expect(await storedAttachmentBytes(s.ctx, url.slice("/user_uploads/".length))).toBeNull();
    expect(existsSync(join(s.ctx.config.dataDir, "uploads", url.slice("/user_uploads/".length)))).toBe(false);
  });

  it("deleting the linking message drops it from the upload's messages (the file stays the uploader's)", async () => {
    const { owner } = s.realm;
    const { url } = expectSuccess(await upload(owner, [{ field: "file", name: "gone.txt", type: "text/plain", data: Buffer.from("abc") }]));
    const messageId = await sendChannelMessage(s, owner, "public-room", "files", `[gone](${url})`);
    expectSuccess(await s.api.delete(owner, `/messages/${messageId}`));
    const entry = expectSuccess(await s.api.get(owner, "/attachments")).attachments.find((a: { path_id: string }) => url.endsWith(a.path_id));
    expect(entry.messages).toEqual([]);
    expect(await s.db.selectFrom("attachment_messages").selectAll().where("message_id", "=", messageId).execute()).toEqual([]);
    expect((await fetchFile(owner, url)).statusCode).toBe(200);
  });
});
