/**
 * NUL characters in text. PostgreSQL rejects them in any text value ("invalid byte sequence
 * for encoding UTF8: 0x00"), so a client-supplied name, email or topic holding one made the
 * request fail with a server error there, while SQLite stored or searched it. One rule on
 * both databases, applied to every statement's parameters just before execution:
 * - reads (SELECT): a NUL becomes U+FFFF, a noncharacter no stored text holds, so the lookup
 *   simply finds nothing;
 * - other statements: a NUL is refused with a client error (the transaction rolls back).
 *   Fields with their own upstream message (message content, topics, channel and user
 *   names) check before writing; this catches every other free-text field.
 * The check scans the flat parameter list only (no query-tree walk on the hot path).
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from "kysely";
import { ApiError } from "../errors.js";
import type { ReplayableConnection } from "./tx.js";

const NUL = "\u0000";
const SUBSTITUTE = "\uffff";

const hasNul = (v: unknown): v is string => typeof v === "string" && v.includes(NUL);

function guard(query: CompiledQuery): CompiledQuery {
  if (!query.parameters.some(hasNul)) return query;
  if (query.query.kind !== "SelectQueryNode") refuseNul(query.parameters);
  return { ...query, parameters: readParameters(query.parameters) };
}

/** A write's parameters: a NUL is refused with a client error (writes that bypass Kysely call it too). */
export function refuseNul(parameters: readonly unknown[]): void {
  if (parameters.some(hasNul)) throw new ApiError("Text must not contain null bytes");
}

/** A read's parameters with NULs substituted (the same list when none holds one). */
export function readParameters(parameters: readonly unknown[]): readonly unknown[] {
  if (!parameters.some(hasNul)) return parameters;
  return parameters.map((v) => (hasNul(v) ? v.replaceAll(NUL, SUBSTITUTE) : v));
}

/**
 * A connection whose statements are guarded. It holds the connection it wraps (no
 * WeakMaps: the SQLite driver hands out a new connection object for every statement).
 */
class GuardedConnection implements DatabaseConnection, ReplayableConnection {
  constructor(readonly inner: DatabaseConnection) {}

  markReplayable(): void {
    (this.inner as Partial<ReplayableConnection>).markReplayable?.();
  }

  executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(guard(q));
  }

  streamQuery<R>(q: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(guard(q), chunkSize);
  }
}

/** The dialect with its connections' statements guarded. */
export function withNulGuard(dialect: Dialect): Dialect {
  const wrap = (conn: DatabaseConnection) => new GuardedConnection(conn);
  const inner = (conn: DatabaseConnection) => (conn instanceof GuardedConnection ? conn.inner : conn);
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver => {
      const d = dialect.createDriver();
      // Every other driver method receives the connection it handed out: give back the original.
      return new Proxy(d, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== "function") return value;
          if (prop === "acquireConnection") return async () => wrap(await d.acquireConnection());
          return (...args: unknown[]) =>
            (value as (...a: unknown[]) => unknown).apply(
              target,
              args.map((a) => inner(a as DatabaseConnection)),
            );
        },
      });
    },
  };
}
