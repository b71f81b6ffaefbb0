/**
 * A small seeded pseudo-random generator and hostile-input builders for the robustness
 * suites. Deterministic: the same seed gives the same requests, so failures reproduce.
 */

/** mulberry32: a tiny 32-bit seeded generator (good enough for test-case selection). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** k distinct items (fewer when the list is shorter). */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = [...items];
    const out: T[] = [];
    while (out.length < k && copy.length > 0) out.push(copy.splice(this.int(copy.length), 1)[0]);
    return out;
  }
}

/** A stable seed from a string (FNV-1a), so each route gets its own reproducible stream. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A raw parameter value: `text` is form-encoded when sent; `encoded` is sent verbatim (may be invalid). */
export type RawValue = { text: string } | { encoded: string };

const nested = (depth: number, open: string, close: string, inner = "1") => open.repeat(depth) + inner + close.repeat(depth);

/** Hostile values, each a generator so large ones are built only when picked. */
export const HOSTILE_VALUES: ReadonlyArray<(rng: Rng) => RawValue> = [
  () => ({ text: "" }),
  () => ({ text: " " }),
  () => ({ text: "9223372036854775808" }), // 2^63
  () => ({ text: "-9223372036854775809" }),
  () => ({ text: "18446744073709551616" }),
  () => ({ text: "9007199254740993" }), // 2^53 + 1
  () => ({ text: "-1" }),
  () => ({ text: "0" }),
  () => ({ text: "-0" }),
  () => ({ text: "1e309" }),
  () => ({ text: "-1e309" }),
  () => ({ text: "1e400" }),
  () => ({ text: "1.5" }),
  () => ({ text: "007" }),
  () => ({ text: "0x10" }),
  () => ({ text: "NaN" }),
  () => ({ text: "Infinity" }),
  () => ({ text: "null" }),
  () => ({ text: "true" }),
  () => ({ text: "True" }),
  () => ({ text: "[]" }),
  () => ({ text: "{}" }),
  () => ({ text: '"string"' }),
  () => ({ text: "[1, 2, \"x\", null, {}]" }),
  () => ({ text: "[9223372036854775808]" }),
  () => ({ text: "[-1, 0, 1e309]" }),
  () => ({ text: '{"a":' }),
  () => ({ text: "[" }),
  () => ({ text: '{"__proto__": {"polluted": 1}}' }),
  () => ({ text: '{"constructor": {"prototype": {"polluted": 1}}}' }),
  () => ({ text: '[{"__proto__": {"name": "x"}}]' }),
  () => ({ text: '{"a": 1, "a": 2}' }),
  () => ({ text: '[{"name": "x", "name": 5}]' }),
  () => ({ text: '[{"operator": "stream", "operand": 9223372036854775808}]' }),
  () => ({ text: '[{"operator": "id", "operand": -1}]' }),
  () => ({ text: '[{"operator": null}]' }),
  () => ({ text: '[["stream"]]' }),
  () => ({ text: nested(5000, "[", "]") }),
  () => ({ text: nested(3000, '{"a":', "}") }),
  () => ({ text: "[" + Array.from({ length: 20000 }, (_, i) => i).join(",") + "]" }),
  (rng) => ({ text: "x".repeat(rng.pick([61, 101, 1025, 10001, 60001, 200_000])) }),
  (rng) => ({ text: "😀".repeat(rng.pick([30, 61, 5001, 10001])) }),
  () => ({ text: "a\u0000b" }),
  () => ({ text: "\u0000" }),
  () => ({ text: "\ud800" }), // lone surrogate
  () => ({ text: "\u202eevil\u202c" }),
  () => ({ text: "e\u0301\u0301\u0301" }),
  () => ({ text: "user@example.com" }),
  () => ({ text: "owner@other.example.com" }),
  () => ({ text: "../../etc/passwd" }),
  () => ({ text: "'; DROP TABLE users; --" }),
  () => ({ text: "%00" }),
  () => ({ encoded: "%ff%fe" }),
  () => ({ encoded: "%c3%28" }),
  () => ({ encoded: "%e2%82" }),
  () => ({ encoded: "%" }),
  () => ({ encoded: "%zz" }),
  () => ({ encoded: "%ed%a0%80" }), // UTF-8 encoded surrogate
  () => ({ encoded: "a%00b" }),
];

export function hostileValue(rng: Rng): RawValue {
  return rng.pick(HOSTILE_VALUES)(rng);
}

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as any client would send it). */
export function encodeRaw(v: RawValue): string {
  if ("encoded" in v) return v.encoded;
  let out = "";
  for (const byte of Buffer.from(v.text, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Where a request's parameters go. */
export type Placement = "body" | "query" | "both" | "json-body" | "multipart" | "none";
export const PLACEMENTS: readonly Placement[] = ["body", "body", "body", "body", "query", "query", "both", "json-body", "multipart", "none"];

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/**
 * Builds one request with the given (possibly repeated) parameters. Multipart and JSON bodies
 * carry the decoded text; form bodies and query strings carry the raw encoding.
 */
export function buildRawRequest(
  method: string,
  path: string,
  params: Array<[string, RawValue]>,
  placement: Placement,
  headers: Record<string, string>,
): RawRequest {
  const form = params.map(([k, v]) => `${encodeRaw({ text: k })}=${encodeRaw(v)}`).join("&");
  const inQuery = placement === "query" || placement === "both" || (method === "GET" && placement === "body");
  const url = `/api/v1${path}${inQuery && form ? `?${form}` : ""}`;
  const h = { ...headers };
  let payload: string | Buffer | undefined;
  if (placement === "body" || placement === "both") {
    if (method !== "GET") {
      h["content-type"] = "application/x-www-form-urlencoded";
      payload = form;
    }
  } else if (placement === "json-body") {
    h["content-type"] = "application/json";
    const obj: Record<string, string> = {};
    for (const [k, v] of params) obj[k] = "text" in v ? v.text : v.encoded;
    payload = JSON.stringify(obj);
  } else if (placement === "multipart") {
    const boundary = "----fuzzboundary7MA4YWxkTrZu0gW";
    h["content-type"] = `multipart/form-data; boundary=${boundary}`;
    const parts = params.map(
      ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${"text" in v ? v.text : v.encoded}\r\n`,
    );
    payload = Buffer.from(parts.join("") + `--${boundary}--\r\n`, "utf8");
  }
  return { method, url, headers: h, payload };
}

/** Path segment values for `{x:int}` and `{x}` segments that are hostile on their own. */
export const HOSTILE_PATH_INTS = ["0", "999999999", "9223372036854775808", "99999999999999999999999999", "00001"];
export const HOSTILE_PATH_SEGMENTS = ["%ff", "%c3%28", "a%00b", "%", "..", "x".repeat(300), "me", "0", "-1", "%2F", "user%40example.com"];

/** A cheap database fingerprint: every table's row count plus a checksum of the key tables. */
export interface DbSnapshot {
  counts: Record<string, number>;
  checksum: string;
}

type AnyDb = import("kysely").Kysely<import("../../src/db/schema.js").DB>;

const CHECKSUM_TABLES = [
  "realms",
  "users",
  "channels",
  "subscriptions",
  "messages",
  "user_messages",
  "linkifiers",
  "custom_profile_fields",
  "custom_profile_field_values",
  "reactions",
  "user_groups",
  "user_group_members",
] as const;

let tableNames: string[] | undefined;

export async function snapshotDb(db: AnyDb): Promise<DbSnapshot> {
  if (!tableNames) {
    const tables = await db.introspection.getTables();
    tableNames = tables.map((t) => t.name).filter((n) => !n.startsWith("kysely_") && !n.startsWith("sqlite_")).sort();
  }
  const { sql } = await import("kysely");
  const union = tableNames.map((t) => `SELECT '${t}' AS t, COUNT(*) AS n FROM "${t}"`).join(" UNION ALL ");
  const rows = await sql<{ t: string; n: number | string }>`${sql.raw(union)}`.execute(db);
  const counts: Record<string, number> = {};
  for (const r of rows.rows) counts[r.t] = Number(r.n);
  const crypto = await import("node:crypto");
  const hash = crypto.createHash("sha256");
  for (const t of CHECKSUM_TABLES) {
    const all = await db.selectFrom(t).selectAll().execute();
    const lines = all.map((r) => JSON.stringify(r)).sort();
    hash.update(`${t}:${lines.join("\n")}\n`);
  }
  return { counts, checksum: hash.digest("hex") };
}

/** Known objects of one organization, for path ids and cross-organization checks. */
export interface RealmObjects {
  publicChannel: { id: number; name: string };
  privateChannel: { id: number; name: string };
  /** A channel message and a direct message (member → other). */
  channelMessageId: number;
  directMessageId: number;
  linkifierId: number;
  profileFieldId: number;
  /** A user group (created by the member, who may manage it). */
  userGroupId: number;
  /** The member's draft, scheduled message and reminder. */
  draftId: number;
  scheduledMessageId: number;
  reminderId: number;
  /** A member that tests may deactivate or edit freely. */
  victim: import("../../src/db/schema.js").User;
  /** Strings that must never appear in another organization's responses. */
  secrets: string[];
}

/** Creates the objects through the API (as the organization's owner) and direct actions. */
export async function seedObjects(s: import("./server.js").TestServer, which: "realm" | "other", tag: string): Promise<RealmObjects> {
  const { createChannel } = await import("./channels.js");
  const { doCreateUser } = await import("../../src/actions/users-create.js");
  const { Role } = await import("../../src/lib/roles.js");
  const seeded = s[which];
  const ok = (res: { statusCode: number; json(): any }) => {
    if (res.statusCode !== 200) throw new Error(`fixture failed: ${JSON.stringify(res.json())}`);
    return res.json();
  };
  const { owner, admin, member, other, bot } = seeded;
  const pub = await createChannel(s, { name: `${tag}-public-chan`, subscribers: [owner, admin, member, other, bot], creator: owner });
  const priv = await createChannel(s, {
    name: `${tag}-private-chan`,
    invite_only: true,
    history_public_to_subscribers: true,
    subscribers: [owner, member, other],
    creator: owner,
  });
  const channelMessageId = ok(
    await s.api.post(member, "/messages", { type: "stream", to: pub.name, topic: `${tag}-topic`, content: `${tag}-channel-content` }),
  ).id as number;
  ok(await s.api.post(member, "/messages", { type: "stream", to: priv.name, topic: `${tag}-ptopic`, content: `${tag}-private-content` }));
  const directMessageId = ok(await s.api.post(member, "/messages", { type: "direct", to: [other.id], content: `${tag}-direct-content` })).id as number;
  const linkifierId = ok(
    await s.api.post(owner, "/realm/filters", { pattern: `${tag}-#(?P<id>[0-9]+)`, url_template: `https://${tag}.example.net/{id}` }),
  ).id as number;
  const profileFieldId = ok(await s.api.post(owner, "/realm/profile_fields", { name: `${tag}-field`, hint: "", field_type: 1 })).id as number;
  const userGroupId = ok(await s.api.post(member, "/user_groups/create", { name: `${tag}-group`, description: `${tag}-group-about`, members: [member.id] })).group_id as number;
  const draftId = ok(await s.api.post(member, "/drafts", { drafts: [{ type: "", to: [], topic: "", content: `${tag}-draft-content` }] })).ids[0] as number;
  const later = Math.floor(s.ctx.now() / 1000) + 10 * 365 * 86400;
  const scheduledMessageId = ok(
    await s.api.post(member, "/scheduled_messages", { type: "direct", to: JSON.stringify([other.id]), content: `${tag}-scheduled-content`, scheduled_delivery_timestamp: later }),
  ).scheduled_message_id as number;
  const reminderId = ok(await s.api.post(member, "/reminders", { message_id: directMessageId, scheduled_delivery_timestamp: later, note: `${tag}-reminder-note` })).reminder_id as number;
  const domain = which === "other" ? "other.example.com" : "example.com";
  const victim = await doCreateUser(s.ctx, seeded.realm, { email: `${tag}-victim@${domain}`, fullName: `${tag} Victim`, password: null, role: Role.MEMBER });
  return {
    publicChannel: { id: pub.id, name: pub.name },
    privateChannel: { id: priv.id, name: priv.name },
    channelMessageId,
    directMessageId,
    linkifierId,
    profileFieldId,
    userGroupId,
    draftId,
    scheduledMessageId,
    reminderId,
    victim,
    secrets: [
      `${tag}-public-chan`,
      `${tag}-private-chan`,
      `${tag}-channel-content`,
      `${tag}-private-content`,
      `${tag}-direct-content`,
      `${tag}-topic`,
      `${tag}.example.net`,
      `${tag}-field`,
      `${tag}-group`,
      `${tag}-victim@`,
      `${tag}-draft-content`,
      `${tag}-scheduled-content`,
      `${tag}-reminder-note`,
      ...(which === "other" ? [owner, admin, member, other, bot].map((u) => u.delivery_email) : []),
    ],
  };
}

/** Every user's API key and password hash (read fresh: keys may have been rotated). */
export async function allCredentials(db: AnyDb): Promise<Array<{ userId: number; realmId: number; isBot: boolean; ownerId: number | null; secret: string }>> {
  const rows = await db.selectFrom("users").select(["id", "realm_id", "is_bot", "bot_owner_id", "api_key", "password_hash"]).execute();
  const out = [];
  for (const r of rows) {
    const base = { userId: r.id, realmId: r.realm_id, isBot: r.is_bot === 1, ownerId: r.bot_owner_id };
    out.push({ ...base, secret: r.api_key });
    if (r.password_hash) out.push({ ...base, secret: r.password_hash });
  }
  // Browser sessions: the stored token hash and the CSRF secret never leave the server either.
  const sessions = await db.selectFrom("sessions").select(["user_id", "realm_id", "token_hash", "csrf_secret"]).execute();
  for (const r of sessions) {
    const base = { userId: r.user_id, realmId: r.realm_id, isBot: false, ownerId: null };
    out.push({ ...base, secret: r.token_hash }, { ...base, secret: r.csrf_secret });
  }
  return out;
}
