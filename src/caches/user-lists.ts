/**
 * GET /users serialized, per realm and per kind of viewer: records differ by the viewer's
 * role (email visibility), by spectator or not, and by client_hashavatar and
 * include_custom_profile_fields. The viewer's own record (whose real email they always
 * see) is rendered per request and spliced in at its recorded position.
 */
import { GenerationalMap } from "./generational-map.js";

export interface SerializedUserList {
  realmId: number;
  /** The JSON array of records, UTF-8 encoded once (a large list is not re-encoded per request). */
  json: Buffer;
  /** user id → [start, end) byte offsets of its record in `json`, and the record itself. */
  records: Map<number, { start: number; end: number; record: Record<string, unknown> }>;
}

export interface UserListKey {
  realmId: number;
  /** The viewer's role, or null for a spectator. */
  viewerRole: number | null;
  clientHashAvatar: boolean;
  includeProfile: boolean;
}

export class UserListCache {
  private readonly lists = new GenerationalMap<string, SerializedUserList>(200);

  async get(key: UserListKey, render: () => Promise<Array<Record<string, unknown>>>): Promise<SerializedUserList> {
    const k = `${key.realmId}:${key.viewerRole}:${key.clientHashAvatar}:${key.includeProfile}`;
    return this.lists.getOrLoad(k, async () => serialize(key.realmId, await render()));
  }

  flushRealm(realmId: number): void {
    this.lists.flush((_, list) => list.realmId === realmId);
  }

  flushAll(): void {
    this.lists.flush();
  }
}

function serialize(realmId: number, records: Array<Record<string, unknown>>): SerializedUserList {
  const parts: string[] = [];
  const byId: SerializedUserList["records"] = new Map();
  let at = 1;
  for (const record of records) {
    const json = JSON.stringify(record);
    if (parts.length > 0) at++;
    const bytes = Buffer.byteLength(json);
    byId.set(record.user_id as number, { start: at, end: at + bytes, record });
    at += bytes;
    parts.push(json);
  }
  return { realmId, json: Buffer.from(`[${parts.join(",")}]`), records: byId };
}

/** The list as buffers to send, with one record replaced (the viewer's own). */
export function withRecord(list: SerializedUserList, userId: number, record: Record<string, unknown>): Buffer[] {
  const at = list.records.get(userId);
  if (at === undefined) return [list.json];
  const own = Buffer.from(JSON.stringify(record));
  // Usually the same record (the viewer's email is visible to their role anyway): send the list as is.
  if (own.equals(list.json.subarray(at.start, at.end))) return [list.json];
  return [list.json.subarray(0, at.start), own, list.json.subarray(at.end)];
}
