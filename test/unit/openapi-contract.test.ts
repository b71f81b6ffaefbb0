/**
 * The contract check itself (test/support/openapi): upstream's reading rules, path
 * matching, neutral names, the allow-list, and the precision of its failure messages.
 * Runs when ../shared/reference/openapi/zulip.yaml is present.
 */
import { describe, expect, it } from "vitest";
import { openapiDocument } from "../support/openapi/document.js";
import { examplePath, findOperation } from "../support/openapi/operations.js";
import { mergeAllOf, toJsonSchema } from "../support/openapi/schema.js";
import { checkEvent, checkResponse } from "../support/openapi/validate.js";

const doc = openapiDocument();
const json = (v: unknown) => JSON.stringify(v);
const respond = (method: string, path: string, status: number, body: unknown) =>
  checkResponse(method, path, status, "application/json; charset=utf-8", json(body));

describe("schema reading rules", () => {
  it("merges allOf naively: objects merged, lists concatenated, first scalar kept", () => {
    const merged = mergeAllOf({
      allOf: [
        { type: "object", required: ["a"], properties: { a: { type: "string" } } },
        { required: ["b"], additionalProperties: false, properties: { a: {}, b: { type: "integer" } }, type: "array" },
      ],
    });
    expect(merged).toEqual({
      type: "object",
      required: ["a", "b"],
      additionalProperties: false,
      properties: { a: { type: "string" }, b: { type: "integer" } },
    });
  });

  it("admits null for nullable, turns oneOf into anyOf and drops documentation keys", () => {
    expect(toJsonSchema({ type: "string", nullable: true, enum: ["x"], description: "d", example: "x", "x-y": 1 })).toEqual({
      type: ["string", "null"],
      enum: ["x", null],
    });
    expect(toJsonSchema({ oneOf: [{ type: "integer" }], nullable: true })).toEqual({ anyOf: [{ anyOf: [{ type: "integer" }] }, { type: "null" }] });
    // A field called "description" is a field, not documentation.
    expect(toJsonSchema({ properties: { description: { type: "string", description: "doc" } } })).toEqual({
      properties: { description: { type: "string" } },
    });
  });
});

describe.skipIf(!doc)("against upstream's file", () => {
  it("maps concrete paths to the file's templates, literals first, ids only on digits", () => {
    const t = (m: string, p: string) => findOperation(doc!, m, p)?.template ?? null;
    expect(t("GET", "/users/me")).toBe("/users/me");
    expect(t("GET", "/users/12")).toBe("/users/{user_id}");
    expect(t("GET", "/users/a%40b.example")).toBe("/users/{email}");
    expect(t("POST", "/messages/flags")).toBe("/messages/flags");
    expect(t("GET", "/messages/7/history")).toBe("/messages/{message_id}/history");
    expect(t("GET", "/no/such/path")).toBeNull();
    expect(examplePath("/users/{id:int}/presence")).toBe("/users/1/presence");
  });

  it("accepts a documented success answer and refuses a field the schema does not list, naming operation, status, pointer and keyword", () => {
    const user = { email: "a@x", user_id: 1, avatar_version: 1, is_admin: false, is_owner: false, is_guest: false, role: 400, is_bot: false, full_name: "A", timezone: "", is_active: true, date_joined: "2020-01-01T00:00:00+00:00", avatar_url: null, delivery_email: null, bot_type: null, bot_owner_id: null, profile_data: {} };
    expect(() => respond("GET", "/users/1", 200, { result: "success", msg: "", user })).not.toThrow();
    expect(() => respond("GET", "/users/1", 200, { result: "success", msg: "", user: { ...user, is_billing_admin: false } })).toThrow(
      /GET \/users\/\{user_id\} \(get-user\) HTTP 200[\s\S]*at \/user: additionalProperties 'is_billing_admin'/,
    );
    expect(() => respond("GET", "/users/1", 200, { result: "success", msg: "", user: { ...user, user_id: "1" } })).toThrow(/at \/user\/user_id: type/);
  });

  it("validates error bodies against the documented error shapes, including the spec's 404", () => {
    expect(() => respond("GET", "/messages/99", 404, { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST" })).not.toThrow();
    expect(() => respond("POST", "/messages", 400, { result: "error", msg: "x", code: "STREAM_DOES_NOT_EXIST", stream_id: 9 })).not.toThrow();
    expect(() => respond("GET", "/messages/99", 404, { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST", extra: 1 })).toThrow(
      /HTTP 404[\s\S]*additionalProperties 'extra'/,
    );
    expect(() => respond("GET", "/messages/99", 400, { result: "error", msg: "no code" })).toThrow(/required/);
  });

  it("maps the neutral names back and refuses upstream's names", () => {
    const settings = { result: "success", msg: "" };
    expect(() => respond("GET", "/server_settings", 200, { ...settings, zulip_version: "1" })).toThrow(/upstream's names[\s\S]*\/zulip_version \(field name\)/);
  });

  it("records, and never fails, operations the file does not document", () => {
    expect(() => respond("GET", "/no/such/path", 200, { anything: true })).not.toThrow();
    expect(() => respond("PATCH", "/users/a@b.example", 405, { result: "error" })).not.toThrow();
  });

  it("checks each queued event against the schema of its type and op", () => {
    expect(() => checkEvent({ type: "heartbeat", id: 3 })).not.toThrow();
    expect(() => checkEvent({ type: "user_settings", op: "update", property: "timezone", value: "UTC", id: 1 })).not.toThrow();
    // The file's event schemas list no required fields; types and extra fields are checked.
    expect(() => checkEvent({ type: "user_settings", op: "update", property: "timezone", value: [1], id: 1 })).toThrow(
      /event user_settings\/update \(id 1\)[\s\S]*at \/value: type/,
    );
    expect(() => checkEvent({ type: "typing", op: "start", id: 1, surprise: true })).toThrow(/additionalProperties 'surprise'/);
    // A type the file does not know is recorded, not failed.
    expect(() => checkEvent({ type: "no_such_event", id: 1 })).not.toThrow();
  });

  it("strips allow-listed newer fields only where the allow-list names them", () => {
    const base = { result: "success", msg: "" };
    expect(() => respond("POST", "/users/me/subscriptions", 403, { result: "error", msg: "x", code: "UNAUTHORIZED_PRINCIPAL", principal: 5 })).not.toThrow();
    expect(() => respond("GET", "/users/me", 200, { ...base, realm_topics_policy: "inherit" })).toThrow(/additionalProperties 'realm_topics_policy'/);
  });
});
