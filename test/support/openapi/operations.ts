/**
 * Which operation of upstream's file a request is: its path template (`/users/{user_id}`)
 * and method. Literal segments beat parameters; a parameter named `…_id` (or
 * `realm_id_str`) only matches digits, `email` anything but digits.
 */
import type { JsonObject } from "./json.js";

export interface OperationRef {
  method: string;
  /** Path template as in the file, e.g. `/users/{user_id}`. */
  template: string;
  operationId: string;
  operation: JsonObject;
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

function segmentMatches(pattern: string, segment: string): number {
  const param = /^\{(.+)\}$/.exec(pattern)?.[1];
  if (param === undefined) return pattern === segment ? 2 : -1;
  if (segment === "") return -1;
  if (/_id$|_id_str$/.test(param)) return /^\d+$/.test(segment) ? 1 : -1;
  if (param === "email") return /^\d+$/.test(segment) ? -1 : 0;
  return 0;
}

/** The documented operation for `method` on a concrete path under /api/v1, or null. */
export function findOperation(doc: JsonObject, method: string, path: string): OperationRef | null {
  const segments = path.split("/").slice(1).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  const paths = doc.paths as JsonObject;
  let best: { template: string; score: number } | null = null;
  for (const [template, item] of Object.entries(paths)) {
    if (!(item as JsonObject)[method.toLowerCase()]) continue;
    const patterns = template.split("/").slice(1);
    if (patterns.length !== segments.length) continue;
    let score = 0;
    for (let i = 0; i < patterns.length && score >= 0; i++) {
      const s = segmentMatches(patterns[i], segments[i]);
      score = s < 0 ? -1 : score + s;
    }
    if (score >= 0 && (best === null || score > best.score)) best = { template, score };
  }
  if (best === null) return null;
  const operation = (paths[best.template] as JsonObject)[method.toLowerCase()] as JsonObject;
  return { method: method.toUpperCase(), template: best.template, operationId: String(operation.operationId), operation };
}

/** Every documented operation, for the coverage report. */
export function allOperations(doc: JsonObject): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [template, item] of Object.entries(doc.paths as JsonObject)) {
    for (const m of HTTP_METHODS) {
      const operation = (item as JsonObject)[m] as JsonObject | undefined;
      if (operation) out.push({ method: m.toUpperCase(), template, operationId: String(operation.operationId), operation });
    }
  }
  return out;
}

/** A concrete example path for one of Parley's route patterns (`{id:int}` → 1). */
export function examplePath(routePath: string): string {
  return routePath.replace(/\{([^}:*]+)(:int)?(\*)?\}/g, (_m, name: string, int?: string) =>
    int ? "1" : /email/.test(name) ? "someone@example.com" : "x",
  );
}
