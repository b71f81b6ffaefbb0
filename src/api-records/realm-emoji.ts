/**
 * A realm's custom emoji as GET /realm/emoji, /register's realm_emoji and realm_emoji
 * events show them: by id (a string), deactivated ones included. `still_url` is set only
 * for animated emoji (the first frame as PNG, upstream's still/ path).
 */
import { stillFileName } from "../lib/emoji-files.js";

export function toApiRealmEmoji(
  realmId: number,
  rows: ReadonlyArray<{ id: number; name: string; file_name: string; deactivated: number; author_id: number | null; is_animated?: number }>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const base = `/user_avatars/${realmId}/emoji/images`;
  for (const e of rows) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: `${base}/${encodeURIComponent(e.file_name)}`,
      still_url: e.is_animated === 1 ? `${base}/still/${encodeURIComponent(stillFileName(e.file_name))}` : null,
      deactivated: e.deactivated === 1,
      author_id: e.author_id,
    };
  }
  return out;
}
