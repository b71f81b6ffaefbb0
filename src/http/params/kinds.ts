/**
 * Parameter kinds: how one request parameter (always a string on the wire) becomes a
 * typed value. `p.str()` takes the raw text; the JSON kinds decode first, then validate.
 */
import { ApiError } from "../../errors.js";
import { paramMessages as m } from "./messages.js";
import { v, type IntOptions, type Validator } from "./validators.js";

export class Param<T> {
  constructor(
    readonly read: (raw: string, name: string) => T,
    readonly required: boolean = true,
    readonly fallback: T | undefined = undefined,
    readonly aliases: readonly string[] = [],
  ) {}

  /** Absent → undefined. */
  optional(): Param<T | undefined> {
    return new Param<T | undefined>(this.read, false, undefined, this.aliases);
  }

  /** Absent → the given value. */
  default(value: T): Param<T> {
    return new Param<T>(this.read, false, value, this.aliases);
  }

  /** Also accept the parameter under another name (e.g. `subject` for `topic`). */
  alias(name: string): Param<T> {
    return new Param<T>(this.read, this.required, this.fallback, [...this.aliases, name]);
  }
}

function fail(msg: string): never {
  throw new ApiError(msg);
}

function decodeJson(raw: string, name: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return fail(m.notValidJson(name));
  }
}

export interface StrOptions {
  maxLength?: number;
  /** Reject a value that is empty after stripping whitespace. */
  nonBlank?: boolean;
  oneOf?: readonly string[];
}

export const p = {
  /** A raw (not JSON-encoded) string. */
  str(opts: StrOptions = {}): Param<string> {
    return new Param((raw, name) => {
      if (opts.nonBlank && raw.trim() === "") fail(m.blank(name));
      if (opts.oneOf && !opts.oneOf.includes(raw)) fail(m.invalidChoice(name));
      if (opts.maxLength !== undefined && [...raw].length > opts.maxLength) fail(m.tooLong(name, opts.maxLength));
      return raw;
    });
  },

  /** A JSON integer. */
  int(opts: IntOptions = {}): Param<number> {
    return p.json(v.int(opts));
  },

  /** A non-negative integer written as plain digits (upstream's converter style). */
  nonNegativeInt(): Param<number> {
    return new Param((raw, name) => {
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        throw new ApiError(m.badValue(name, raw), { code: "REQUEST_VARIABLE_INVALID", data: { var_name: name, bad_value: raw } });
      }
      return Number(raw);
    });
  },

  /** A JSON boolean: only `true` / `false`. */
  bool(): Param<boolean> {
    return p.json(v.bool());
  },

  /** A JSON value checked by a validator (lists, objects, unions…). */
  json<T>(validate: Validator<T>): Param<T> {
    return new Param((raw, name) => validate(decodeJson(raw, name), name));
  },

  /** A list of integers as JSON text, e.g. `[1,2]`; at most MAX_LIST_ITEMS unless `maxLength` says otherwise. */
  intList(opts: { maxLength?: number } = {}): Param<number[]> {
    return p.json(v.list(v.int(), opts));
  },
};

export { v };
export type { Validator };
