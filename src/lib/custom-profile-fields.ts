/**
 * Custom profile fields: field types, validation of field definitions and of users'
 * values (upstream's messages), rendering of Markdown-capable values, and the API shapes.
 */
import { ApiError } from "../errors.js";
import { renderMarkdown, type MarkdownLookups } from "./markdown/index.js";
import type { CustomProfileField } from "../db/schema.js";
import type { ProfileData } from "../api-records/user.js";
import { listProfileFields, profileValuesForUsers, profileValuesOfUserWithTypes, type ProfileValueRow } from "../db/queries/custom-profile-fields.js";
import type { Queryable } from "../db/tx.js";
import { checkListLength } from "./list-limits.js";

export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;
export const ALL_FIELD_TYPES: readonly number[] = Object.values(FieldType);

export const NAME_MAX_LENGTH = 40;
export const HINT_MAX_LENGTH = 80;
export const SHORT_VALUE_MAX_LENGTH = 50;
export const LONG_VALUE_MAX_LENGTH = 500;
export const MAX_SUMMARY_FIELDS = 2;

/** Built-in external-account subtypes: a field created with one gets its name and hint from here. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string; url_pattern: string }> = {
  github: { name: "GitHub", hint: "Enter your GitHub username", url_pattern: "https://github.com/%(username)s" },
  twitter: { name: "Twitter", hint: "Enter your Twitter username", url_pattern: "https://twitter.com/%(username)s" },
};

const fail = (msg: string): never => {
  throw new ApiError(msg);
};

/** Short and long text values are Markdown; their rendered HTML is stored and sent as rendered_value. */
export function isRenderable(fieldType: number): boolean {
  return fieldType === FieldType.SHORT_TEXT || fieldType === FieldType.LONG_TEXT;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * Renders a Markdown-capable value (profile text fields, the realm description) without
 * mention or linkifier lookups. A renderer failure must not block the update: the value
 * then shows as an escaped paragraph.
 */
export function renderMarkdownValue(value: string, realmUrl: string): string {
  try {
    return renderMarkdown(value, NO_LOOKUPS(realmUrl)).html;
  } catch {
    return `<p>${escapeHtml(value)}</p>`;
  }
}

const NO_LOOKUPS = (realmUrl: string): MarkdownLookups => ({
  usersByName: () => [],
  userById: () => undefined,
  groupByName: () => undefined,
  channelByName: () => undefined,
  linkifiers: [],
  realmUrl,
});

/** The `custom_fields` entry for a field. */
export function toApiProfileField(f: CustomProfileField): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    type: f.field_type,
    hint: f.hint,
    field_data: f.field_data,
    order: f.order,
    display_in_profile_summary: f.display_in_profile_summary === 1,
    required: f.required === 1,
    editable_by_user: f.editable_by_user === 1,
  };
}

/** Groups value rows into profile_data per user (`{}` for users with no values). */
export function profileDataByUser(
  rows: readonly ProfileValueRow[],
  fieldTypes: ReadonlyMap<number, number>,
): Map<number, ProfileData> {
  const out = new Map<number, ProfileData>();
  for (const row of rows) {
    const type = fieldTypes.get(row.field_id);
    if (type === undefined) continue;
    let data = out.get(row.user_id);
    if (!data) out.set(row.user_id, (data = {}));
    data[String(row.field_id)] = isRenderable(type) ? { value: row.value, rendered_value: row.rendered_value } : { value: row.value };
  }
  return out;
}

// ---------- field definitions (POST /realm/profile_fields) ----------

export type FieldData = Record<string, unknown>;

function requiredString(value: unknown, name: string): string {
  if (typeof value !== "string") return fail(`${name} is not a string`);
  if (value.trim() === "") return fail(`${name} cannot be blank.`);
  return value;
}

function checkDictOnly(value: unknown, name: string, required: string[], optional: string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(`${name} is not a dict`);
  const obj = value as Record<string, unknown>;
  for (const key of required) {
    if (!(key in obj)) fail(`${key} key is missing from ${name}`);
  }
  const extra = Object.keys(obj).filter((k) => !required.includes(k) && !optional.includes(k));
  if (extra.length > 0) fail(`Unexpected arguments: ${extra.sort().join(", ")}`);
  return obj;
}

function validateSelectFieldData(fieldData: FieldData): void {
  if (Object.keys(fieldData).length < 1) fail("Field must have at least one choice.");
  const texts = new Set<string>();
  for (const [key, option] of Object.entries(fieldData)) {
    if (!key.trim()) fail("'value' cannot be blank.");
    const obj = checkDictOnly(option, "field_data", ["text", "order"], []);
    texts.add(requiredString(obj.text, 'field_data["text"]'));
    requiredString(obj.order, 'field_data["order"]');
  }
  if (texts.size !== Object.keys(fieldData).length) fail("Field must not have duplicate choices.");
}

function validateExternalAccountFieldData(fieldData: FieldData): void {
  const obj = checkDictOnly(fieldData, "field_data", ["subtype"], ["url_pattern"]);
  requiredString(obj.subtype, 'field_data["subtype"]');
  if (obj.url_pattern !== undefined) {
    if (typeof obj.url_pattern !== "string") fail('field_data["url_pattern"] is not a string');
    const pattern = obj.url_pattern as string;
    if (pattern.split("%(username)s").length !== 2) fail("URL pattern must contain '%(username)s'.");
    if (!isValidUrl(pattern.replace("%(username)s", "username"))) fail('field_data["url_pattern"] is not a URL');
  }
  if (!(typeof obj.subtype === "string" && obj.subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
    if (obj.subtype === "custom") {
      if (obj.url_pattern === undefined) fail("Custom external account must define URL pattern");
    } else {
      fail("Invalid external account type");
    }
  }
}

export function isDefaultExternalField(fieldType: number, fieldData: FieldData): boolean {
  return fieldType === FieldType.EXTERNAL_ACCOUNT && fieldData.subtype !== "custom";
}

/** Validates a new field in upstream's order (data → name/hint → type → summary display). */
export function validateFieldDefinition(input: {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
}): void {
  if (input.fieldType === FieldType.SELECT) validateSelectFieldData(input.fieldData);
  else if (input.fieldType === FieldType.EXTERNAL_ACCOUNT) validateExternalAccountFieldData(input.fieldData);
  if (!isDefaultExternalField(input.fieldType, input.fieldData)) {
    if (!input.name.trim()) fail("Label cannot be blank.");
    if ([...input.hint].length > HINT_MAX_LENGTH) fail(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
    if ([...input.name].length > NAME_MAX_LENGTH) fail(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  }
  if (!ALL_FIELD_TYPES.includes(input.fieldType)) fail("Invalid field type.");
  if (input.displayInProfileSummary && (input.fieldType === FieldType.LONG_TEXT || input.fieldType === FieldType.USER)) {
    fail("Field type not supported for display in profile summary.");
  }
}

// ---------- values ----------

export function isValidUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (!["http:", "https:", "ftp:", "ftps:"].includes(url.protocol)) return false;
  return /^[^\s]+$/.test(text) && (url.hostname === "localhost" || /\.[a-z][a-z0-9-]*$/i.test(url.hostname) || /^[\d.]+$/.test(url.hostname));
}

function checkString(value: unknown, name: string, maxLength?: number): string {
  if (typeof value !== "string") return fail(`${name} is not a string`);
  if (maxLength !== undefined && [...value].length > maxLength) fail(`${name} is too long (limit: ${maxLength} characters)`);
  return value;
}

function checkDate(value: unknown, name: string): string {
  const s = checkString(value, name);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!d || d.toISOString().slice(0, 10) !== s) fail(`${name} is not a date`);
  return s;
}

/** The users a USER-type value names, for checking they exist, are active and are human. */
export type UserLookup = (ids: number[]) => Promise<Array<{ id: number; is_active: number; is_bot: number }>>;

/**
 * Validates one value for a field and returns its stored text form (user lists as JSON).
 * Messages name the field by its label, as upstream.
 */
export async function validateFieldValue(field: CustomProfileField, value: string | number[], lookupUsers: UserLookup): Promise<string> {
  const name = field.name;
  switch (field.field_type) {
    case FieldType.SHORT_TEXT:
    case FieldType.EXTERNAL_ACCOUNT:
    case FieldType.PRONOUNS:
      return checkString(value, name, SHORT_VALUE_MAX_LENGTH);
    case FieldType.LONG_TEXT:
      return checkString(value, name, LONG_VALUE_MAX_LENGTH);
    case FieldType.DATE:
      return checkDate(value, name);
    case FieldType.URL: {
      const s = checkString(value, name);
      if (!isValidUrl(s)) fail(`${name} is not a URL`);
      return s;
    }
    case FieldType.SELECT: {
      const s = checkString(value, name);
      const choices = JSON.parse(field.field_data || "{}") as Record<string, unknown>;
      if (!Object.prototype.hasOwnProperty.call(choices, s)) fail(`'${s}' is not a valid choice for '${name}'.`);
      return s;
    }
    case FieldType.USER: {
      if (!Array.isArray(value)) return fail("User IDs is not a list");
      checkListLength(value, "User IDs");
      value.forEach((id, i) => {
        if (typeof id !== "number" || !Number.isSafeInteger(id)) fail(`User IDs[${i}] is not an integer`);
      });
      const found = await lookupUsers(value);
      const byId = new Map(found.map((u) => [u.id, u]));
      const invalid = value.filter((id) => !byId.has(id));
      if (invalid.length > 0) fail(`Invalid user IDs: ${invalid.join(", ")}`);
      for (const u of found) {
        if (!u.is_active) fail(`User with ID ${u.id} is deactivated`);
        if (u.is_bot) fail(`User with ID ${u.id} is a bot`);
      }
      return JSON.stringify(value);
    }
    default:
      return fail("Invalid field type.");
  }
}

/** One entry of a profile_data / data parameter; value null means "remove". */
export interface ProfileDataUpdate {
  id: number;
  value: string | number[] | null;
}

/** Validator for the JSON list of {id, value} objects (REQ-style messages). */
export function parseProfileDataList(raw: unknown, name: string, allowNull: boolean): ProfileDataUpdate[] {
  if (!Array.isArray(raw)) return fail(`${name} is not a list`);
  checkListLength(raw, name);
  return raw.map((entry, i) => {
    const at = `${name}[${i}]`;
    const obj = checkDictOnly(entry, at, ["id", "value"], []);
    if (typeof obj.id !== "number" || !Number.isSafeInteger(obj.id)) fail(`${at}["id"] is not an integer`);
    const value = obj.value;
    const ok =
      (value === null && allowNull) ||
      typeof value === "string" ||
      (Array.isArray(value) && value.every((x) => typeof x === "number" && Number.isSafeInteger(x)));
    if (!ok) fail(`${at}["value"] is not an allowed_type`);
    return { id: obj.id as number, value: value as string | number[] | null };
  });
}

/**
 * profile_data for the given users (every user of the realm when userIds is undefined):
 * one query for the realm's fields, one for the values. Users without values get `{}`.
 */
export async function loadProfileData(db: Queryable, realmId: number, userIds?: readonly number[]): Promise<Map<number, ProfileData>> {
  const fields = await listProfileFields(db, realmId);
  const rows = await profileValuesForUsers(db, realmId, userIds);
  return profileDataByUser(rows, new Map(fields.map((f) => [f.id, f.field_type])));
}

/** One user's profile data (GET /users/me): a single query joining values to their fields. */
export async function loadOwnProfileData(db: Queryable, realmId: number, userId: number): Promise<ProfileData> {
  const rows = await profileValuesOfUserWithTypes(db, realmId, userId);
  return profileDataByUser(rows, new Map(rows.map((r) => [r.field_id, r.field_type]))).get(userId) ?? {};
}

/** Upstream checks the profile-summary limit before anything else about a new field. */
export async function checkProfileSummaryLimit(db: Queryable, realmId: number): Promise<void> {
  const fields = await listProfileFields(db, realmId);
  if (fields.filter((f) => f.display_in_profile_summary).length >= MAX_SUMMARY_FIELDS) {
    fail(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
  }
}
