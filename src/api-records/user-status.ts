/** A user's status as /register and GET /users/{id}/status show it: only the keys that are set (as upstream). */
export function toApiUserStatus(row: { status_text: string; emoji_name: string; emoji_code: string; reaction_type: string } | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!row) return out;
  if (row.status_text) out.status_text = row.status_text;
  if (row.emoji_name) Object.assign(out, { emoji_name: row.emoji_name, emoji_code: row.emoji_code, reaction_type: row.reaction_type });
  return out;
}
