/**
 * parseParams(req, spec): reads each declared parameter in declaration order (the
 * first error wins) from the body, then the query string, and records which names
 * were consumed so success responses can report `ignored_parameters_unsupported`.
 */
import { ApiError } from "../../errors.js";
import type { ApiRequest } from "../request.js";
import type { Param } from "./kinds.js";
import { paramMessages as m } from "./messages.js";

type Spec = Record<string, Param<unknown>>;
export type Parsed<S extends Spec> = { [K in keyof S]: S[K] extends Param<infer T> ? T : never };

export function parseParams<S extends Spec>(req: ApiRequest, spec: S): Parsed<S> {
  req.usedFramework = true;
  const out: Record<string, unknown> = {};
  const given = req.params;
  for (const name in spec) {
    const param = spec[name];
    // The name or one alias given (no arrays built: this runs for every parameter of every request).
    let key: string | undefined = given.has(name) ? name : undefined;
    for (const alias of param.aliases) {
      if (!given.has(alias)) continue;
      if (key !== undefined) {
        throw new ApiError(m.confusing(key, alias), { code: "REQUEST_CONFUSING_VAR", data: { var_name1: key, var_name2: alias } });
      }
      key = alias;
    }
    if (key === undefined) {
      if (param.required) {
        throw new ApiError(m.missing(name), { code: "REQUEST_VARIABLE_MISSING", data: { var_name: name } });
      }
      out[name] = param.fallback;
      continue;
    }
    req.usedParams.add(key);
    out[name] = param.read(given.get(key)!, name);
  }
  return out as Parsed<S>;
}

/** Reads a digits-only path segment (the route already guarantees the format). */
export function pathInt(req: ApiRequest, name: string): number {
  const raw = req.pathParams[name];
  const n = Number(raw);
  if (!/^\d+$/.test(raw ?? "") || !Number.isSafeInteger(n)) throw new ApiError(m.badValue(name, raw ?? ""));
  return n;
}
