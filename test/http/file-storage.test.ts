/**
 * Where uploaded files and custom emoji images are kept (src/storage): the data folder and
 * the database store and serve the same bytes with the same headers; a file store reads
 * only its own organization's files; and on PostgreSQL a file uploaded through one app
 * instance is served by a second one on the same database with a data folder of its own
 * (as on another node of a cluster).
 */
import crypto from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { FileStorageKind } from "../../src/config.js";
import type { AppContext } from "../../src/context.js";
import { openDb } from "../../src/db/connect.js";
import type { User } from "../../src/db/schema.js";
import { contextFor } from "../../src/server.js";
import { fileStore } from "../../src/storage/file-store.js";
import { FolderFileStore } from "../../src/storage/folder-store.js";
import { basicAuth, expectSuccess } from "../support/client.js";
import { animatedGif, postFiles } from "../support/multipart.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { storedFileNames } from "../support/stored-files.js";

const KINDS: FileStorageKind[] = ["folder", "database"];
const servers = new Map<FileStorageKind, TestServer>();

beforeAll(async () => {
  for (const kind of KINDS) servers.set(kind, await startTestServer({ fileStorage: kind }));
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

/** Every byte value, and more than one network packet's worth. */
const BYTES = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), crypto.randomBytes(300_000)]);

async function uploadAttachment(s: TestServer, user: User, content: Buffer, filename = "data.bin"): Promise<string> {
  return expectSuccess(await postFiles(s, user, "/user_uploads", [{ field: "file", filename, content, type: "application/octet-stream" }])).url as string;
}

async function uploadEmoji(s: TestServer, user: User, name: string, content: Buffer): Promise<{ source_url: string; still_url: string | null }> {
  expectSuccess(await postFiles(s, user, `/realm/emoji/${name}`, [{ field: "f1", filename: "e.gif", content, type: "image/gif" }]));
  const list = expectSuccess(await s.api.get(user, "/realm/emoji")).emoji as Record<string, { name: string; source_url: string; still_url: string | null }>;
  return Object.values(list).find((e) => e.name === name)!;
}

const fetchAs = (app: FastifyInstance, host: string, url: string, user?: User) =>
  app.inject({ method: "GET", url, headers: { host, ...(user ? { authorization: basicAuth(user) } : {}) } });

/** What a client sees of a served file: status, the headers the file routes set, the bytes. */
const served = (res: LightMyRequestResponse) => ({
  status: res.statusCode,
  headers: Object.fromEntries(["content-type", "content-disposition", "content-security-policy", "x-content-type-options", "cache-control"].map((h) => [h, res.headers[h]])),
  bytes: res.rawPayload,
});

describe("both backends", () => {
  it("store and serve an attachment's bytes alike, each where it says", async () => {
    const results = [];
    for (const kind of KINDS) {
      const s = servers.get(kind)!;
      const url = await uploadAttachment(s, s.realm.member, BYTES);
      const res = served(await fetchAs(s.app, s.realm.host, url, s.realm.member));
      expect(res.status).toBe(200);
      expect(res.bytes.equals(BYTES)).toBe(true);
      results.push({ ...res, headers: res.headers });
      const onDisk = join(s.ctx.config.dataDir, "uploads", url.slice("/user_uploads/".length));
      expect(existsSync(onDisk)).toBe(kind === "folder");
      const rows = await s.db.selectFrom("stored_files").select(["realm_id", "area", "name", "size"]).execute();
      expect(rows).toEqual(kind === "database" ? [{ realm_id: s.realm.realm.id, area: "attachments", name: url.slice(`/user_uploads/${s.realm.realm.id}/`.length), size: BYTES.length }] : []);
    }
    expect(results[0]).toEqual(results[1]);
    expect(results[0].headers).toEqual({
      "content-type": "application/octet-stream",
      "content-disposition": "attachment; filename*=UTF-8''data.bin",
      "content-security-policy": "default-src 'none'; sandbox",
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=3600",
    });
  });

  it("store and serve an animated emoji and its still alike", async () => {
    const gif = await animatedGif();
    const results = [];
    for (const kind of KINDS) {
      const s = servers.get(kind)!;
      const emoji = await uploadEmoji(s, s.realm.member, "spinner", gif);
      expect(emoji.still_url).not.toBeNull();
      const image = served(await fetchAs(s.app, s.realm.host, emoji.source_url));
      const still = served(await fetchAs(s.app, s.realm.host, emoji.still_url!));
      expect([image.status, still.status]).toEqual([200, 200]);
      expect(image.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect([image.headers["content-type"], still.headers["content-type"]]).toEqual(["image/gif", "image/png"]);
      const fileName = emoji.source_url.split("/").at(-1)!;
      expect(await storedFileNames(s.ctx, s.realm.realm.id, "emoji")).toEqual([fileName, `still/${fileName.replace(/\.gif$/, ".png")}`]);
      results.push({ image: image.bytes.length, still: still.bytes.length, headers: [image.headers, still.headers] });
    }
    // The same image processed the same way: the same sizes and headers from either backend.
    expect(results[0]).toEqual(results[1]);
  });

  it("deleting an attachment deletes its stored bytes", async () => {
    for (const kind of KINDS) {
      const s = servers.get(kind)!;
      const url = await uploadAttachment(s, s.realm.owner, Buffer.from("short-lived"), "gone.txt");
      const name = url.slice(`/user_uploads/${s.realm.realm.id}/`.length);
      expect(await fileStore(s.ctx).exists(s.realm.realm.id, "attachments", name)).toBe(true);
      const { attachments } = expectSuccess(await s.api.get(s.realm.owner, "/attachments"));
      const id = (attachments as Array<{ id: number; path_id: string }>).find((a) => url.endsWith(a.path_id))!.id;
      expectSuccess(await s.api.delete(s.realm.owner, `/attachments/${id}`));
      expect(await fileStore(s.ctx).exists(s.realm.realm.id, "attachments", name)).toBe(false);
      expect(await storedFileNames(s.ctx, s.realm.realm.id, "attachments")).not.toContain(name);
      expect((await fetchAs(s.app, s.realm.host, url, s.realm.owner)).statusCode).toBe(404);
    }
  });

  it("a file store reads only its own organization's files, and no name leaves its folder", async () => {
    for (const kind of KINDS) {
      const s = servers.get(kind)!;
      const store = fileStore(s.ctx);
      const [mine, theirs] = [s.realm.realm.id, s.other.realm.id];
      await store.put(mine, "attachments", "ab/shared-name/x.txt", Buffer.from("mine"));
      expect(await store.get(theirs, "attachments", "ab/shared-name/x.txt")).toBeNull();
      expect(await store.exists(theirs, "attachments", "ab/shared-name/x.txt")).toBe(false);
      await store.put(theirs, "attachments", "ab/shared-name/x.txt", Buffer.from("theirs!"));
      expect(await store.get(mine, "attachments", "ab/shared-name/x.txt")).toEqual({ data: Buffer.from("mine"), size: 4 });
      expect(await store.get(theirs, "attachments", "ab/shared-name/x.txt")).toEqual({ data: Buffer.from("theirs!"), size: 7 });
      // An area is no way into another: an emoji of that name is a different file.
      expect(await store.get(mine, "emoji", "ab/shared-name/x.txt")).toBeNull();
      await expect(store.put(mine, "attachments", "ab/shared-name/x.txt", Buffer.from("again"))).rejects.toThrow();
      await store.delete(theirs, "attachments", ["ab/shared-name/x.txt"]);
      expect(await store.get(mine, "attachments", "ab/shared-name/x.txt")).toEqual({ data: Buffer.from("mine"), size: 4 });
      await store.delete(mine, "attachments", ["ab/shared-name/x.txt"]);
      expect(await store.exists(mine, "attachments", "ab/shared-name/x.txt")).toBe(false);
      for (const escape of [`../${theirs}/ab/shared-name/x.txt`, "../../parley.sqlite3", `../emoji/${mine}/x.png`]) {
        expect(await store.get(mine, "attachments", escape)).toBeNull();
      }
    }
  });

  it("another organization reaches neither the files nor their URLs", async () => {
    for (const kind of KINDS) {
      const s = servers.get(kind)!;
      const url = await uploadAttachment(s, s.realm.owner, Buffer.from("private"), "p.txt");
      const rest = url.slice(`/user_uploads/${s.realm.realm.id}/`.length);
      const emoji = await uploadEmoji(s, s.realm.owner, `own_${kind}`, await animatedGif(40, 40, 2));
      const other = s.other;
      // Their own host and credentials, this organization's URL, or their realm id with this file's path.
      expect((await fetchAs(s.app, other.host, url, other.owner)).statusCode).toBe(404);
      expect((await fetchAs(s.app, other.host, `/user_uploads/${other.realm.id}/${rest}`, other.owner)).statusCode).toBe(404);
      const foreignEmoji = emoji.source_url.replace(`/user_avatars/${s.realm.realm.id}/`, `/user_avatars/${other.realm.id}/`);
      expect((await fetchAs(s.app, other.host, foreignEmoji)).statusCode).toBe(404);
      expect((await fetchAs(s.app, other.host, foreignEmoji.replace("/images/", "/images/still/").replace(/\.gif$/, ".png"))).statusCode).toBe(404);
      expect((await fetchAs(s.app, s.realm.host, emoji.source_url)).statusCode).toBe(200);
    }
  });
});

describe("switching to the database", () => {
  it("files the data folder held before are still served from there, and deleted there", async () => {
    const s = servers.get("database")!;
    const { member } = s.realm;
    const realmId = s.realm.realm.id;
    // As an earlier release stored it: {data}/uploads/{path_id}, and its row.
    const pathId = `${realmId}/0a/earlier-upload-of-this-test/old.txt`;
    await new FolderFileStore(s.ctx.config.dataDir).put(realmId, "attachments", pathId.slice(`${realmId}/`.length), Buffer.from("from before"));
    expect(existsSync(join(s.ctx.config.dataDir, "uploads", pathId))).toBe(true);
    const row = await s.db
      .insertInto("attachments")
      .values({ realm_id: realmId, owner_id: member.id, path_id: pathId, file_name: "old.txt", content_type: "text/plain", size: 11, create_time: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const res = await fetchAs(s.app, s.realm.host, `/user_uploads/${pathId}`, member);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("from before");
    expectSuccess(await s.api.delete(member, `/attachments/${row.id}`));
    expect(existsSync(join(s.ctx.config.dataDir, "uploads", pathId))).toBe(false);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("two app instances on one PostgreSQL database", () => {
  let s: TestServer;
  const second: Array<{ kind: FileStorageKind; app: FastifyInstance; ctx: AppContext; dataDir: string }> = [];

  beforeAll(async () => {
    s = servers.get("database")!;
    for (const kind of KINDS) {
      const dataDir = mkdtempSync(join(tmpdir(), "parley-second-node-"));
      const ctx = contextFor({ ...s.ctx.config, dataDir, fileStorage: kind }, openDb({ databaseUrl: s.databaseUrl!, poolSize: 2 }));
      second.push({ kind, app: await buildApp(ctx), ctx, dataDir });
    }
  });
  afterAll(async () => {
    for (const n of second) {
      await n.app.close();
      await n.ctx.db.destroy();
      rmSync(n.dataDir, { recursive: true, force: true });
    }
  });

  const instance = (kind: FileStorageKind) => second.find((n) => n.kind === kind)!;

  it("an emoji image uploaded through one is served by the other", async () => {
    const gif = await animatedGif(64, 64, 2);
    const emoji = await uploadEmoji(s, s.realm.member, "cross_node", gif);
    const here = served(await fetchAs(s.app, s.realm.host, emoji.source_url));
    const there = served(await fetchAs(instance("database").app, s.realm.host, emoji.source_url));
    expect(here.status).toBe(200);
    expect(there).toEqual(here);
    expect(served(await fetchAs(instance("database").app, s.realm.host, emoji.still_url!))).toEqual(served(await fetchAs(s.app, s.realm.host, emoji.still_url!)));
    // The control: an instance keeping files in its own folder has not got them.
    expect((await fetchAs(instance("folder").app, s.realm.host, emoji.source_url)).statusCode).toBe(404);
  });

  it("an attachment uploaded through one is served by the other, and deleted through it", async () => {
    const url = await uploadAttachment(s, s.realm.member, BYTES, "shared.bin");
    const there = served(await fetchAs(instance("database").app, s.realm.host, url, s.realm.member));
    expect(there.status).toBe(200);
    expect(there.bytes.equals(BYTES)).toBe(true);
    expect(there).toEqual(served(await fetchAs(s.app, s.realm.host, url, s.realm.member)));
    // Access checks are the same on the other instance: a user the file is not shared with is refused.
    expect((await fetchAs(instance("database").app, s.realm.host, url, s.realm.other)).statusCode).toBe(403);
    expect((await fetchAs(instance("folder").app, s.realm.host, url, s.realm.member)).statusCode).toBe(404);
    // A temporary URL one instance hands out works on the other (the signing key is in the database).
    const temporary = expectSuccess(await s.api.get(s.realm.member, url)).url as string;
    const viaTemporary = await instance("database").app.inject({ method: "GET", url: temporary, headers: { host: s.realm.host } });
    expect(viaTemporary.statusCode).toBe(200);
    expect(viaTemporary.rawPayload.equals(BYTES)).toBe(true);

    const { attachments } = expectSuccess(await s.api.get(s.realm.member, "/attachments"));
    const id = (attachments as Array<{ id: number; path_id: string }>).find((a) => url.endsWith(a.path_id))!.id;
    const removed = await instance("database").app.inject({ method: "DELETE", url: `/api/v1/attachments/${id}`, headers: { host: s.realm.host, authorization: basicAuth(s.realm.member) } });
    expect(removed.statusCode).toBe(200);
    expect((await fetchAs(s.app, s.realm.host, url, s.realm.member)).statusCode).toBe(404);
    expect(await storedFileNames(s.ctx, s.realm.realm.id, "attachments")).not.toContain(url.slice(`/user_uploads/${s.realm.realm.id}/`.length));
  });
});
