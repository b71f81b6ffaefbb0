/**
 * Result rows of a better-sqlite3 statement, built cheaply. In its default mode the driver
 * builds each row object through V8's API, one named property at a time (the name made a
 * string and looked up in V8's string table for every column of every row; past a few
 * dozen columns the object even turns into a dictionary). That was about half the cost of
 * a 30-column row (GET /messages/{id}: about 45k of 106k instructions). Here the statement
 * returns arrays (`raw` mode) and a function made once per statement turns each into an
 * object literal of its columns: same keys, same order, same values (a later column of the
 * same name wins, as before), one hidden class for every row.
 */
import type SQLite from "better-sqlite3";

interface RowFactory {
  width: number;
  make: (values: unknown[]) => Record<string, unknown>;
}

const factories = new WeakMap<SQLite.Statement, RowFactory>();

/** A row factory for the statement's columns as prepared now; leaves the statement in raw mode. */
function factoryFor(stmt: SQLite.Statement): RowFactory {
  const names = stmt.columns().map((c) => c.name);
  stmt.raw(true);
  if (names.includes("__proto__")) {
    // Not expressible as a literal key: define each property.
    const make = (v: unknown[]) => {
      const row: Record<string, unknown> = {};
      names.forEach((name, i) => Object.defineProperty(row, name, { value: v[i], enumerable: true, writable: true, configurable: true }));
      return row;
    };
    return { width: names.length, make };
  }
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(", ");
  return { width: names.length, make: new Function("v", `return { ${fields} };`) as RowFactory["make"] };
}

/** All rows of a statement that returns data, as objects keyed by column name. */
export function allRows<R>(stmt: SQLite.Statement, parameters: readonly unknown[]): R[] {
  let factory = factories.get(stmt);
  if (factory === undefined) factories.set(stmt, (factory = factoryFor(stmt)));
  const rows = stmt.all(parameters) as unknown[][];
  // SQLite prepares a statement again after a schema change: a `select *` may have other columns now.
  if (rows.length > 0 && rows[0].length !== factory.width) factories.set(stmt, (factory = factoryFor(stmt)));
  const out = new Array<R>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = factory.make(rows[i]) as R;
  return out;
}
