/**
 * A realm's custom emoji as GET /realm/emoji, /register's realm_emoji and realm_emoji
 * events show them: by id (a string), deactivated ones included. `still_url` is null:
 * Parley stores no animated emoji yet.
 */
export function toApiRealmEmoji(
  realmId: number,
  rows: ReadonlyArray<{ id: number; name: string; file_name: string; deactivated: number; author_id: number | null }>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of rows) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: `/user_avatars/${realmId}/emoji/images/${encodeURIComponent(e.file_name)}`,
      still_url: null,
      deactivated: e.deactivated === 1,
      author_id: e.author_id,
    };
  }
  return out;
}
