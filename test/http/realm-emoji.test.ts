import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";
import sharp from "sharp";
import { storedFileNames } from "../support/stored-files.js";
import { isUniqueViolation } from "../../src/db/queries/realm-emoji.js";
import { snapshotDb } from "../support/fuzz.js";
import { animatedGif, pngImage, postFiles, type UploadFile } from "../support/multipart.js";

let s: TestServer;
let published: PublishedEvent[] = [];
const ids: Record<string, number> = {};

beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((p) => published.push(p));
  for (const [name, author] of [["green_tick", s.realm.member], ["red_cross", s.realm.owner], ["old", s.realm.owner]] as const) {
    ids[name] = (await s.db.insertInto("realm_emoji").values({ realm_id: s.realm.realm.id, name, file_name: `${name}.png`, author_id: author.id, deactivated: name === "old" ? 1 : 0 }).returning("id").executeTakeFirstOrThrow()).id;
  }
  await s.db.insertInto("realm_emoji").values({ realm_id: s.other.realm.id, name: "elsewhere", file_name: "e.png", author_id: s.other.owner.id }).execute();
});
afterAll(() => s.close());
beforeEach(() => {
  published = [];
});

const record = (name: string, deactivated: boolean, authorId: number) => ({
  id: String(ids[name]),
  name,
  source_url: `/user_avatars/${s.realm.realm.id}/emoji/images/${name}.png`,
  still_url: null,
  deactivated,
  author_id: authorId,
});

describe("GET /realm/emoji", () => {
  it("lists the organization's custom emoji by id, deactivated ones included", async () => {
    expect(expectSuccess(await s.api.get(s.realm.guest, "/realm/emoji"))).toEqual({
      result: "success",
      msg: "",
      emoji: {
        [ids.green_tick]: record("green_tick", false, s.realm.member.id),
        [ids.red_cross]: record("red_cross", false, s.realm.owner.id),
        [ids.old]: record("old", true, s.realm.owner.id),
      },
    });
  });
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
  it("its author deactivates it; a realm_emoji event carries the whole map to every active user", async () => {
    const { member } = s.realm;
    expect(expectSuccess(await s.api.delete(member, "/realm/emoji/green_tick"))).toEqual({ result: "success", msg: "" });
    const row = await s.db.selectFrom("realm_emoji").select("deactivated").where("id", "=", ids.green_tick).executeTakeFirstOrThrow();
    expect(row.deactivated).toBe(1);
    expect(published).toHaveLength(1);
    expect(published[0].event).toEqual({
      type: "realm_emoji",
      op: "update",
      realm_emoji: {
        [ids.green_tick]: record("green_tick", true, member.id),
        [ids.red_cross]: record("red_cross", false, s.realm.owner.id),
        [ids.old]: record("old", true, s.realm.owner.id),
      },
    });
    expect(published[0].userIds).toEqual(expect.arrayContaining([s.realm.guest.id, s.realm.owner.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);
  });

  it("others need to be administrators; unknown, deactivated and other-realm emoji do not exist", async () => {
    const before = await s.db.selectFrom("realm_emoji").selectAll().orderBy("id").execute();
    expectError(await s.api.delete(s.realm.member, "/realm/emoji/red_cross"), "Must be an organization administrator or emoji author");
    expectError(await s.api.delete(s.realm.moderator, "/realm/emoji/red_cross"), "Must be an organization administrator or emoji author");
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/nope"), "Emoji 'nope' does not exist", { status: 404 });
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/old"), "Emoji 'old' does not exist", { status: 404 });
    expectError(await s.api.delete(s.realm.admin, "/realm/emoji/elsewhere"), "Emoji 'elsewhere' does not exist", { status: 404 });
    expect(await s.db.selectFrom("realm_emoji").selectAll().orderBy("id").execute()).toEqual(before);
    expect(published).toEqual([]);
    expectSuccess(await s.api.delete(s.realm.admin, "/realm/emoji/red_cross"));
  });
});

const file = (content: Buffer, field = "f1", filename = "img.png"): UploadFile => ({ field, filename, content, type: "image/png" });

/** The emoji row and the record every reader sees, for an uploaded name. */
async function uploaded(name: string) {
  const row = await s.db.selectFrom("realm_emoji").selectAll().where("realm_id", "=", s.realm.realm.id).where("name", "=", name).where("deactivated", "=", 0).executeTakeFirstOrThrow();
  const list = expectSuccess(await s.api.get(s.realm.guest, "/realm/emoji")).emoji as Record<string, Record<string, unknown>>;
  return { row, record: list[String(row.id)] };
}

const storedFiles = () => storedFileNames(s.ctx, s.realm.realm.id, "emoji");

const fetchFile = (url: string) => s.app.inject({ method: "GET", url, headers: { host: s.realm.host } });

describe("POST /realm/emoji/{emoji_name}", () => {
  it("a member uploads a PNG: stored 64×64 under the data folder, served at source_url, announced to everyone", async () => {
    const res = await postFiles(s, s.realm.member, "/realm/emoji/party_time", [file(await pngImage(300, 200))]);
    expect(expectSuccess(res)).toEqual({ result: "success", msg: "" });
    const { row, record } = await uploaded("party_time");
    expect(row).toMatchObject({ author_id: s.realm.member.id, is_animated: 0, deactivated: 0 });
    expect(row.file_name).toMatch(/^[0-9a-f]{16}\.png$/);
    expect(record).toEqual({
      id: String(row.id),
      name: "party_time",
      source_url: `/user_avatars/${s.realm.realm.id}/emoji/images/${row.file_name}`,
      still_url: null,
      deactivated: false,
      author_id: s.realm.member.id,
    });
    expect(published).toHaveLength(1);
    expect(published[0].event).toMatchObject({ type: "realm_emoji", op: "update" });
    expect((published[0].event as any).realm_emoji[String(row.id)]).toEqual(record);
    expect(published[0].userIds).toEqual(expect.arrayContaining([s.realm.guest.id, s.realm.owner.id, s.realm.member.id]));
    expect(published[0].userIds).not.toContain(s.other.owner.id);

    const served = await fetchFile(record.source_url as string);
    expect(served.statusCode).toBe(200);
    expect(served.headers["content-type"]).toBe("image/png");
    expect(served.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(served.headers["x-content-type-options"]).toBe("nosniff");
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 64, 64]);
    // A still exists only for animated emoji.
    const still = await fetchFile(`/user_avatars/${s.realm.realm.id}/emoji/images/still/${row.file_name}`);
    expect(still.statusCode).toBe(404);
  });

  it("an animated GIF stays animated at 64×64; its first frame is a still PNG at still_url", async () => {
    expectSuccess(await postFiles(s, s.realm.member, "/realm/emoji/dancing", [file(await animatedGif(120, 90, 3), "file", "dance.gif")]));
    const { row, record } = await uploaded("dancing");
    expect(row.is_animated).toBe(1);
    expect(row.file_name).toMatch(/^[0-9a-f]{16}\.gif$/);
    const base = row.file_name.replace(/\.gif$/, "");
    expect(record.source_url).toBe(`/user_avatars/${s.realm.realm.id}/emoji/images/${row.file_name}`);
    expect(record.still_url).toBe(`/user_avatars/${s.realm.realm.id}/emoji/images/still/${base}.png`);

    const animated = await fetchFile(record.source_url as string);
    expect(animated.statusCode).toBe(200);
    expect(animated.headers["content-type"]).toBe("image/gif");
    const meta = await sharp(animated.rawPayload, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.width, meta.pageHeight]).toEqual(["gif", 3, 64, 64]);

    const still = await fetchFile(record.still_url as string);
    expect(still.statusCode).toBe(200);
    expect(still.headers["content-type"]).toBe("image/png");
    const stillMeta = await sharp(still.rawPayload).metadata();
    expect([stillMeta.format, stillMeta.pages ?? 1, stillMeta.width, stillMeta.height]).toEqual(["png", 1, 64, 64]);
  });

  it("names are trimmed and spaces read as underscores, as upstream", async () => {
    expectSuccess(await postFiles(s, s.realm.member, `/realm/emoji/${encodeURIComponent(" big smile 2 ")}`, [file(await pngImage())]));
    expect((await uploaded("big_smile_2")).row.author_id).toBe(s.realm.member.id);
  });

  it("refuses bad names, taken names, file counts, sizes and non-images with upstream's messages, changing nothing", async () => {
    const png = await pngImage();
    expectSuccess(await postFiles(s, s.realm.member, "/realm/emoji/taken", [file(png)]));
    published = [];
    const before = await snapshotDb(s.db);
    const filesBefore = await storedFiles();
    const { member } = s.realm;
    const tiff = await sharp({ create: { width: 10, height: 10, channels: 3, background: "#0a0" } }).tiff().toBuffer();
    const cases: Array<[string, UploadFile[], string, { code?: string }?]> = [
      ["%20", [file(png)], "Emoji name is missing"],
      ["My_Emoji", [file(png)], "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."],
      ["my%2Femoji", [file(png)], "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."],
      ["em*oji", [file(png)], "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."],
      ["my_emoji_", [file(png)], "Emoji names must end with either a letter or digit."],
      ["my-emoji-", [file(png)], "Emoji names must end with either a letter or digit."],
      ["a".repeat(61), [file(png)], "Emoji name is too long (limit: 60 characters)"],
      ["taken", [file(png)], "A custom emoji with this name already exists."],
      ["nofile", [], "You must upload exactly one file."],
      ["twofiles", [file(png, "f1"), file(png, "f2")], "You must upload exactly one file."],
      ["samefield", [file(png, "f"), file(png, "f")], "You must upload exactly one file."],
      ["smile", [file(png)], "Only administrators can override default emoji."],
      ["huge", [file(Buffer.alloc(5 * 1024 * 1024 + 1))], "Uploaded file is larger than the allowed limit of 5 MiB"],
      ["text", [file(Buffer.from("not an image at all"))], "Invalid image format", { code: "BAD_IMAGE" }],
      ["tiff", [file(tiff)], "Invalid image format", { code: "BAD_IMAGE" }],
      ["cut", [file(png.subarray(0, Math.ceil(png.length / 2)))], "Image is corrupted or truncated", { code: "BAD_IMAGE" }],
    ];
    for (const [name, files, msg, opts] of cases) {
      const res = await postFiles(s, member, `/realm/emoji/${name}`, files, files.length === 0 ? { note: "x" } : {});
      expectError(res, msg, opts);
    }
    // A form-encoded request carries no file at all.
    expectError(await s.api.post(member, "/realm/emoji/plain"), "You must upload exactly one file.");
    // Guests are refused before anything else (upstream require_member_or_admin).
    expectError(await postFiles(s, s.realm.guest, "/realm/emoji/My_Emoji", [file(png)]), "Not allowed for guest users");
    expect(await snapshotDb(s.db)).toEqual(before);
    expect(await storedFiles()).toEqual(filesBefore);
    expect(published).toEqual([]);
  });

  it("two simultaneous uploads of one name: one wins, the other is refused and leaves no file behind", async () => {
    const png = await pngImage();
    const filesBefore = await storedFiles();
    const results = await Promise.all([1, 2].map(() => postFiles(s, s.realm.member, "/realm/emoji/racing", [file(png)])));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 400]);
    expectError(results.find((r) => r.statusCode === 400)!, "A custom emoji with this name already exists.");
    const { row } = await uploaded("racing");
    expect(await storedFiles()).toEqual([...filesBefore, row.file_name].sort());
  });

  it("the database holds one active emoji per name in an organization (the race's last guard)", async () => {
    const row = { realm_id: s.realm.realm.id, name: "guarded", file_name: "g.png", author_id: s.realm.member.id };
    await s.db.insertInto("realm_emoji").values(row).execute();
    const err = await s.db.insertInto("realm_emoji").values(row).execute().then(() => null, (e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    // Deactivated rows do not count; another organization has its own names.
    await s.db.insertInto("realm_emoji").values({ ...row, deactivated: 1 }).execute();
    await s.db.insertInto("realm_emoji").values({ ...row, realm_id: s.other.realm.id }).execute();
    await s.db.deleteFrom("realm_emoji").where("name", "=", "guarded").execute();
  });

  it("a body far over the emoji limit is cut at the route's body limit (413)", async () => {
    const res = await postFiles(s, s.realm.member, "/realm/emoji/enormous", [file(Buffer.alloc(9 * 1024 * 1024))]);
    expect(res.statusCode).toBe(413);
    expect(await s.db.selectFrom("realm_emoji").select("id").where("name", "=", "enormous").execute()).toEqual([]);
  });

  it("administrators may override a built-in emoji name; a deactivated name can be uploaded again", async () => {
    expectSuccess(await postFiles(s, s.realm.admin, "/realm/emoji/smile", [file(await pngImage())]));
    expect((await uploaded("smile")).row.author_id).toBe(s.realm.admin.id);
    expectSuccess(await s.api.delete(s.realm.member, "/realm/emoji/taken"));
    expectSuccess(await postFiles(s, s.realm.owner, "/realm/emoji/taken", [file(await pngImage())]));
    const rows = await s.db.selectFrom("realm_emoji").select(["deactivated", "author_id"]).where("name", "=", "taken").orderBy("id").execute();
    expect(rows).toEqual([
      { deactivated: 1, author_id: s.realm.member.id },
      { deactivated: 0, author_id: s.realm.owner.id },
    ]);
  });

  it("can_add_custom_emoji_group decides who may upload (members by default, shown in /register)", async () => {
    const groupId = async (name: string) =>
      (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", s.realm.realm.id).where("name", "=", name).executeTakeFirstOrThrow()).id;
    const state = expectSuccess(await s.api.post(s.realm.member, "/register", { fetch_event_types: ["realm"] }));
    expect(state.realm_can_add_custom_emoji_group).toBe(await groupId("role:members"));
    const setGroup = (id: number) => s.db.updateTable("realms").set({ can_add_custom_emoji_group_id: id }).where("id", "=", s.realm.realm.id).execute();
    const png = await pngImage();
    try {
      await setGroup(await groupId("role:administrators"));
      const before = await snapshotDb(s.db);
      expectError(await postFiles(s, s.realm.member, "/realm/emoji/perm_one", [file(png)]), "Insufficient permission");
      expectError(await postFiles(s, s.realm.moderator, "/realm/emoji/perm_one", [file(png)]), "Insufficient permission");
      expect(await snapshotDb(s.db)).toEqual(before);
      expectSuccess(await postFiles(s, s.realm.admin, "/realm/emoji/perm_one", [file(png)]));
      expectSuccess(await postFiles(s, s.realm.owner, "/realm/emoji/perm_two", [file(png)]));

      await setGroup(await groupId("role:moderators"));
      expectError(await postFiles(s, s.realm.member, "/realm/emoji/perm_three", [file(png)]), "Insufficient permission");
      expectSuccess(await postFiles(s, s.realm.moderator, "/realm/emoji/perm_three", [file(png)]));

      // Invalid names are reported before the permission, as upstream.
      expectError(await postFiles(s, s.realm.member, "/realm/emoji/Bad", [file(png)]), "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
    } finally {
      await setGroup(await groupId("role:members"));
    }
    // The other organization's setting is its own.
    expectSuccess(await postFiles(s, s.other.member, "/realm/emoji/perm_one", [file(png)]));
  });
});

describe("GET /user_avatars/{realm_id}/emoji/images/{file}", () => {
  it("serves only files of existing emoji of that organization, deactivated ones included", async () => {
    const png = await pngImage();
    expectSuccess(await postFiles(s, s.realm.member, "/realm/emoji/served", [file(png)]));
    const { row, record } = await uploaded("served");
    const url = record.source_url as string;
    expect((await fetchFile(url)).statusCode).toBe(200);
    // No credentials needed, whatever the host.
    expect((await s.app.inject({ method: "GET", url })).statusCode).toBe(200);
    expectSuccess(await s.api.delete(s.realm.member, "/realm/emoji/served"));
    expect((await fetchFile(url)).statusCode).toBe(200);

    const notFound = async (path: string) => {
      const res = await fetchFile(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json(), path).toEqual({ result: "error", msg: "Not Found", code: "NOT_FOUND" });
    };
    await notFound(`/user_avatars/${s.other.realm.id}/emoji/images/${row.file_name}`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/0123456789abcdef.png`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/green_tick.png`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/..%2F..%2F..%2Fetc%2Fpasswd`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/%2E%2E`);
    await notFound(`/user_avatars/x/emoji/images/${row.file_name}`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/still/${row.file_name}`);
    await notFound(`/user_avatars/${s.realm.realm.id}/emoji/images/still/..%2F${row.file_name}`);
  });
});
