/**
 * Long id lists split into several statements: SQLite refuses more than 32,766 bound
 * values in one statement ("too many SQL variables") and PostgreSQL more than 65,535.
 */

/** Values bound per statement: well under both databases' limits. */
export const SQL_VALUES_PER_STATEMENT = 5000;

/** Splits `items` into runs of at most `size`. */
export function chunked<T>(items: readonly T[], size = SQL_VALUES_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `query` on each run of `items` in turn and concatenates the results. */
export async function inChunks<T, R>(items: readonly T[], query: (chunk: T[]) => Promise<R[]>, size = SQL_VALUES_PER_STATEMENT): Promise<R[]> {
  if (items.length <= size) return query([...items]);
  const out: R[] = [];
  for (const chunk of chunked(items, size)) out.push(...(await query(chunk)));
  return out;
}
