import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let events: PublishedEvent[] = [];
beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());
beforeEach(() => {
  events = [];
});

const fieldCount = async () =>
  Number((await s.db.selectFrom("custom_profile_fields").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

async function create(params: Record<string, unknown>): Promise<number> {
  return expectSuccess(await s.api.post(s.realm.admin, "/realm/profile_fields", params)).id;
}

const ids: Record<string, number> = {};

describe("POST /realm/profile_fields", () => {
  it("creates fields of each type and announces the field list", async () => {
    ids.short = await create({ name: "  Phone ", hint: "Your phone", field_type: 1, display_in_profile_summary: true });
    const row = await s.db.selectFrom("custom_profile_fields").selectAll().where("id", "=", ids.short).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ realm_id: s.realm.realm.id, name: "Phone", hint: "Your phone", field_type: 1, field_data: "", order: ids.short, display_in_profile_summary: 1, required: 0, editable_by_user: 1 });
    const ev = events.find((e) => e.event.type === "custom_profile_fields")!;
    expect((ev.event.fields as any[]).map((f) => f.id)).toEqual([ids.short]);
    expect(ev.userIds).toContain(s.realm.guest.id);
    expect(ev.userIds).not.toContain(s.other.admin.id);

    ids.long = await create({ name: "Biography", field_type: 2 });
    ids.select = await create({ name: "Favorite editor", field_type: 3, field_data: { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } } });
    ids.date = await create({ name: "Birthday", field_type: 4 });
    ids.url = await create({ name: "Homepage", field_type: 5 });
    ids.user = await create({ name: "Manager", field_type: 6, required: true });
    ids.github = await create({ field_type: 7, field_data: { subtype: "github" } });
    ids.custom = await create({ name: "Forum", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://forum.example.com/u/%(username)s" } });
    ids.pronouns = await create({ name: "Pronouns", field_type: 8, editable_by_user: false });
    const gh = await s.db.selectFrom("custom_profile_fields").selectAll().where("id", "=", ids.github).executeTakeFirstOrThrow();
    expect(gh).toMatchObject({ name: "GitHub", hint: "Enter your GitHub username", field_data: '{"subtype":"github"}' });
    const sel = await s.db.selectFrom("custom_profile_fields").selectAll().where("id", "=", ids.select).executeTakeFirstOrThrow();
    expect(JSON.parse(sel.field_data)).toEqual({ vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } });
  });

  it("is for administrators only", async () => {
    const before = await fieldCount();
    for (const caller of [s.realm.moderator, s.realm.member, s.realm.guest]) {
      expectError(await s.api.post(caller, "/realm/profile_fields", { name: "X", field_type: 1 }), "Must be an organization administrator", {
        code: "UNAUTHORIZED_PRINCIPAL",
      });
    }
    expect(await fieldCount()).toBe(before);
  });

  it("validates definitions with upstream's messages", async () => {
    const before = await fieldCount();
    const err = async (params: Record<string, unknown>, msg: string, code?: string) =>
      expectError(await s.api.post(s.realm.admin, "/realm/profile_fields", params), msg, code ? { code } : {});
    await err({ name: "X" }, "Missing 'field_type' argument", "REQUEST_VARIABLE_MISSING");
    await err({ name: "X", field_type: "a" }, "field_type is not valid JSON");
    await err({ name: "X", field_type: 1, field_data: "[]" }, "field_data is not a dict");
    await err({ name: "  ", field_type: 1 }, "Label cannot be blank.");
    await err({ name: "x".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)");
    await err({ name: "X", hint: "h".repeat(81), field_type: 1 }, "hint is too long (limit: 80 characters)");
    await err({ name: "X", field_type: 99 }, "Invalid field type.");
    await err({ name: "X", field_type: 3, field_data: {} }, "Field must have at least one choice.");
    await err({ name: "X", field_type: 3, field_data: { " ": { text: "A", order: "1" } } }, "'value' cannot be blank.");
    await err({ name: "X", field_type: 3, field_data: { a: { order: "1" } } }, "text key is missing from field_data");
    await err({ name: "X", field_type: 3, field_data: { a: { text: "", order: "1" } } }, 'field_data["text"] cannot be blank.');
    await err({ name: "X", field_type: 3, field_data: { a: { text: "A", order: "1" }, b: { text: "A", order: "2" } } }, "Field must not have duplicate choices.");
    await err({ name: "X", field_type: 7, field_data: {} }, "subtype key is missing from field_data");
    await err({ name: "X", field_type: 7, field_data: { subtype: "myspace" } }, "Invalid external account type");
    await err({ name: "X", field_type: 7, field_data: { subtype: "custom" } }, "Custom external account must define URL pattern");
    await err({ name: "X", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://x.com/" } }, "URL pattern must contain '%(username)s'.");
    await err({ name: "X", field_type: 2, display_in_profile_summary: true }, "Field type not supported for display in profile summary.");
    await err({ name: "Phone", field_type: 1 }, "A field with that label already exists.");
    await err({ name: "Y", field_type: 1, display_in_profile_summary: "yes" }, "display_in_profile_summary is not valid JSON");
    expect(await fieldCount()).toBe(before);
  });

  it("allows at most two fields in the profile summary", async () => {
    ids.office = await create({ name: "Office", field_type: 1, display_in_profile_summary: true });
    const before = await fieldCount();
    // The limit is checked before the rest of the definition.
    expectError(
      await s.api.post(s.realm.admin, "/realm/profile_fields", { name: "", field_type: 1, display_in_profile_summary: true }),
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
    expect(await fieldCount()).toBe(before);
  });
});

describe("GET /realm/profile_fields", () => {
  it("lists the realm's fields in order", async () => {
    const body = expectSuccess(await s.api.get(s.realm.guest, "/realm/profile_fields"));
    expect(body.custom_fields.map((f: any) => f.id)).toEqual(Object.values(ids));
    expect(body.custom_fields[0]).toEqual({
      id: ids.short,
      name: "Phone",
      type: 1,
      hint: "Your phone",
      field_data: "",
      order: ids.short,
      display_in_profile_summary: true,
      required: false,
      editable_by_user: true,
    });
    expect(expectSuccess(await s.api.get(s.other.admin, "/realm/profile_fields")).custom_fields).toEqual([]);
  });
});

describe("PATCH /users/me/profile_data", () => {
  const values = (userId: number) =>
    s.db.selectFrom("custom_profile_field_values").select(["field_id", "value", "rendered_value"]).where("user_id", "=", userId).orderBy("field_id").execute();

  it("stores valid values of every type, rendering text fields", async () => {
    const { member, other } = s.realm;
    const data = [
      { id: ids.short, value: "555-1234" },
      { id: ids.long, value: "I like *tea* & <b>cake</b>" },
      { id: ids.select, value: "vim" },
      { id: ids.date, value: "2000-02-29" },
      { id: ids.url, value: "https://example.com/me" },
      { id: ids.user, value: [other.id] },
      { id: ids.github, value: "mary" },
    ];
    expectSuccess(await s.api.patch(member, "/users/me/profile_data", { data }));
    const stored = await values(member.id);
    expect(stored.find((v) => v.field_id === ids.user)!.value).toBe(`[${other.id}]`);
    expect(stored.find((v) => v.field_id === ids.long)!.rendered_value).toBe("<p>I like <em>tea</em> &amp; &lt;b&gt;cake&lt;/b&gt;</p>");
    expect(stored.find((v) => v.field_id === ids.select)!.rendered_value).toBeNull();
    const updates = events.filter((e) => e.event.type === "realm_user");
    expect(updates).toHaveLength(7);
    expect(updates[0].event).toEqual({
      type: "realm_user",
      op: "update",
      person: { user_id: member.id, custom_profile_field: { id: ids.short, value: "555-1234", rendered_value: "<p>555-1234</p>" } },
    });
    expect(updates[2].event.person).toEqual({ user_id: member.id, custom_profile_field: { id: ids.select, value: "vim" } });
    // Values show up in user records.
    const me = expectSuccess(await s.api.get(member, "/users/me"));
    expect(me.profile_data[String(ids.select)]).toEqual({ value: "vim" });
    expect(me.profile_data[String(ids.short)]).toEqual({ value: "555-1234", rendered_value: "<p>555-1234</p>" });
  });

  it("sends no event for an unchanged value and removes values with null or empty string", async () => {
    const { member } = s.realm;
    events = [];
    expectSuccess(await s.api.patch(member, "/users/me/profile_data", { data: [{ id: ids.short, value: "555-1234" }] }));
    expect(events).toEqual([]);
    expectSuccess(await s.api.patch(member, "/users/me/profile_data", { data: [{ id: ids.short, value: null }, { id: ids.date, value: "" }] }));
    const left = (await values(member.id)).map((v) => v.field_id);
    expect(left).not.toContain(ids.short);
    expect(left).not.toContain(ids.date);
    expect(events.map((e) => e.event.person)).toEqual([
      { user_id: member.id, custom_profile_field: { id: ids.short, value: null } },
      { user_id: member.id, custom_profile_field: { id: ids.date, value: null } },
    ]);
  });

  it("rejects invalid values with upstream's messages and writes nothing", async () => {
    const { other } = s.realm;
    const before = await values(other.id);
    const err = async (data: unknown, msg: string) => expectError(await s.api.patch(other, "/users/me/profile_data", { data }), msg);
    await err([{ id: 999999, value: "x" }], "Field id 999999 not found.");
    await err([{ id: ids.short, value: "x".repeat(51) }], "Phone is too long (limit: 50 characters)");
    await err([{ id: ids.long, value: "x".repeat(501) }], "Biography is too long (limit: 500 characters)");
    await err([{ id: ids.short, value: [1] }], "Phone is not a string");
    await err([{ id: ids.select, value: "nano" }], "'nano' is not a valid choice for 'Favorite editor'.");
    await err([{ id: ids.date, value: "2001-02-29" }], "Birthday is not a date");
    await err([{ id: ids.date, value: "1/2/2001" }], "Birthday is not a date");
    await err([{ id: ids.url, value: "not a url" }], "Homepage is not a URL");
    await err([{ id: ids.user, value: "x" }], "User IDs is not a list");
    await err([{ id: ids.user, value: [999998, 999999] }], "Invalid user IDs: 999998, 999999");
    await err([{ id: ids.user, value: [s.other.member.id] }], `Invalid user IDs: ${s.other.member.id}`);
    await err([{ id: ids.user, value: [s.realm.bot.id] }], `User with ID ${s.realm.bot.id} is a bot`);
    await err([{ id: ids.short, value: "ok" }, { id: ids.date, value: "bad" }], "Birthday is not a date");
    await err([{ id: ids.pronouns, value: "they/them" }], "You are not allowed to change this field. Contact an administrator to update it.");
    await err({ id: 1 }, "data is not a list");
    expect(await values(other.id)).toEqual(before);
    expectError(await s.api.patch(other, "/users/me/profile_data", {}), "Missing 'data' argument", { code: "REQUEST_VARIABLE_MISSING" });
  });

  it("lets administrators set fields that users may not edit, and refuses bots", async () => {
    expectSuccess(await s.api.patch(s.realm.admin, "/users/me/profile_data", { data: [{ id: ids.pronouns, value: "he/him" }] }));
    expectError(await s.api.patch(s.realm.bot, "/users/me/profile_data", { data: [] }), "This endpoint does not accept bot requests.");
  });

  it("rejects a deactivated user in a user field", async () => {
    const { other, moderator } = s.realm;
    await s.db.updateTable("users").set({ is_active: 0 }).where("id", "=", moderator.id).execute();
    try {
      expectError(await s.api.patch(other, "/users/me/profile_data", { data: [{ id: ids.user, value: [moderator.id] }] }), `User with ID ${moderator.id} is deactivated`);
    } finally {
      await s.db.updateTable("users").set({ is_active: 1 }).where("id", "=", moderator.id).execute();
    }
  });

  it("cannot touch another realm's fields", async () => {
    expectError(await s.api.patch(s.other.member, "/users/me/profile_data", { data: [{ id: ids.short, value: "x" }] }), `Field id ${ids.short} not found.`);
  });
});
