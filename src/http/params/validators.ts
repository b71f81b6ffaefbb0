/**
 * Validators for JSON-decoded values. Each takes the value and its display name
 * (`members[0]`, `draft["to"]`) and returns the typed value or throws.
 */
import { ApiError } from "../../errors.js";
import { MAX_LIST_ITEMS } from "../../lib/list-limits.js";
import { paramMessages as m } from "./messages.js";

export type Validator<T> = (value: unknown, name: string) => T;

const fail = (msg: string): never => {
  throw new ApiError(msg);
};

export interface IntOptions {
  min?: number;
  max?: number;
  /** Allowed values; anything else is `Invalid <name>`. */
  oneOf?: readonly number[];
}

export const v = {
  int(opts: IntOptions = {}): Validator<number> {
    return (value, name) => {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return fail(m.notInteger(name));
      if (opts.oneOf && !opts.oneOf.includes(value)) return fail(m.invalidChoice(name));
      if (opts.min !== undefined && value < opts.min) return fail(m.tooSmall(name));
      if (opts.max !== undefined && value > opts.max) return fail(m.tooLarge(name));
      return value;
    };
  },

  float(): Validator<number> {
    return (value, name) => (typeof value === "number" && Number.isFinite(value) ? value : fail(m.notFloat(name)));
  },

  bool(): Validator<boolean> {
    return (value, name) => (typeof value === "boolean" ? value : fail(m.notBoolean(name)));
  },

  str(opts: { maxLength?: number; oneOf?: readonly string[] } = {}): Validator<string> {
    return (value, name) => {
      if (typeof value !== "string") return fail(m.notString(name));
      if (opts.oneOf && !opts.oneOf.includes(value)) return fail(m.invalidChoice(name));
      if (opts.maxLength !== undefined && [...value].length > opts.maxLength) return fail(m.tooLong(name, opts.maxLength));
      return value;
    };
  },

  /** A JSON list; every list is bounded (MAX_LIST_ITEMS unless `maxLength` says otherwise). */
  list<T>(item: Validator<T>, opts: { maxLength?: number } = {}): Validator<T[]> {
    const maxLength = opts.maxLength ?? MAX_LIST_ITEMS;
    return (value, name) => {
      if (!Array.isArray(value)) return fail(m.notList(name));
      if (value.length > maxLength) return fail(m.listTooLong(name, maxLength));
      return value.map((element, i) => item(element, `${name}[${i}]`));
    };
  },

  /**
   * A JSON object with known keys. Keys are validated in declaration order; an
   * optional key is one whose validator accepts undefined (see v.optional).
   */
  dict<S extends Record<string, Validator<unknown>>>(
    shape: S,
    opts: { allowExtra?: boolean } = {},
  ): Validator<{ [K in keyof S]: ReturnType<S[K]> }> {
    return (value, name) => {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(m.notDict(name));
      const obj = value as Record<string, unknown>;
      if (!opts.allowExtra) {
        const extra = Object.keys(obj).find((k) => !(k in shape));
        if (extra !== undefined) return fail(m.unexpectedKey(extra, `${name}["${extra}"]`));
      }
      const out: Record<string, unknown> = {};
      for (const [key, validate] of Object.entries(shape)) {
        if (!(key in obj) && !acceptsUndefined(validate)) return fail(m.keyMissing(key, name));
        out[key] = validate(obj[key], `${name}["${key}"]`);
      }
      return out as { [K in keyof S]: ReturnType<S[K]> };
    };
  },

  optional<T>(inner: Validator<T>): Validator<T | undefined> {
    const f: Validator<T | undefined> = (value, name) => (value === undefined ? undefined : inner(value, name));
    (f as { acceptsUndefined?: boolean }).acceptsUndefined = true;
    return f;
  },

  nullable<T>(inner: Validator<T>): Validator<T | null> {
    return (value, name) => (value === null ? null : inner(value, name));
  },

  /** The first validator that accepts the value wins; the last one's error is reported. */
  oneOfTypes<A, B>(a: Validator<A>, b: Validator<B>): Validator<A | B> {
    return (value, name) => {
      try {
        return a(value, name);
      } catch {
        return b(value, name);
      }
    };
  },

  any(): Validator<unknown> {
    return (value) => value;
  },
};

function acceptsUndefined(validate: Validator<unknown>): boolean {
  return (validate as { acceptsUndefined?: boolean }).acceptsUndefined === true;
}
