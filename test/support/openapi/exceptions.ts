/**
 * The spec's explicit departures from upstream's OpenAPI file: the only answers the
 * contract check accepts that the file alone would reject. Each names the spec section
 * (or design rule) that makes it.
 */
import type { Json } from "./json.js";

/**
 * Neutral names (spec, "Conventions used throughout"; openapi/README.md "Names"):
 * Parley's field name → upstream's. Mapped back before validating. Upstream's names
 * themselves are refused in Parley's answers.
 */
export const NEUTRAL_FIELD_NAMES: Readonly<Record<string, string>> = {
  chat_feature_level: "zulip_feature_level",
  chat_version: "zulip_version",
  chat_merge_base: "zulip_merge_base",
  legacy_mirror_active: "zephyr_mirror_active",
};

/** Neutral enum values, by the field that carries them (spec §2.7 and conventions). */
export const NEUTRAL_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  reaction_type: { chat_extra_emoji: "zulip_extra_emoji" },
};

/**
 * HTTP statuses the spec or design choose where upstream's file documents another one.
 * The body is still validated: against every error the operation documents plus the
 * common errors of `/rest-error-handling`.
 */
export const STATUS_EXCEPTIONS: ReadonlyArray<{ status: number; when: string; source: string }> = [
  {
    status: 404,
    when: "the object named in the path or parameters does not exist (or is invisible to the caller)",
    source:
      "spec §7 (NOT_FOUND for navigation views) and DESIGN.md 'Errors and parameters' (404 for objects that do not exist), following upstream's ResourceNotFoundError (upstream-newer.md §0.1), which the file documents as 400",
  },
];

const UPSTREAM_NAMES = new Set(Object.values(NEUTRAL_FIELD_NAMES));

/** JSON pointers of upstream names found in one of Parley's answers (each one a bug). */
export function upstreamNamesIn(value: Json, pointer = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => upstreamNamesIn(v, `${pointer}/${i}`));
  if (typeof value !== "object" || value === null) return [];
  const found: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const here = `${pointer}/${k}`;
    if (UPSTREAM_NAMES.has(k)) found.push(`${here} (field name)`);
    if (typeof v === "string" && Object.values(NEUTRAL_VALUES[k] ?? {}).includes(v)) found.push(`${here} (value ${JSON.stringify(v)})`);
    found.push(...upstreamNamesIn(v, here));
  }
  return found;
}

/** A copy of `value` with the neutral names replaced by upstream's, for validation. */
export function toUpstreamNames(value: Json): Json {
  if (Array.isArray(value)) return value.map(toUpstreamNames);
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    const mapped = typeof v === "string" ? NEUTRAL_VALUES[k]?.[v] : undefined;
    out[NEUTRAL_FIELD_NAMES[k] ?? k] = mapped ?? toUpstreamNames(v);
  }
  return out;
}

/**
 * Error shapes upstream sends that its OpenAPI file does not document; accepted on every
 * operation next to the documented errors.
 */
export const UNDOCUMENTED_ERRORS: ReadonlyArray<{ code: string; schema: Json; source: string }> = [
  {
    // Upstream's CsrfFailureError (zerver/middleware.py): a session-authenticated unsafe
    // request without the right X-CSRFToken; "reason" is Django's CSRF failure reason.
    code: "CSRF_FAILED",
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["result", "msg", "code", "reason"],
      properties: {
        result: { enum: ["error"] },
        msg: { type: "string", pattern: "^CSRF error: " },
        code: { enum: ["CSRF_FAILED"] },
        reason: { type: "string" },
      },
    },
    source: "issue 16 (browser sessions on /json and /api/v1); upstream's csrf_failure, not in its OpenAPI file",
  },
];
