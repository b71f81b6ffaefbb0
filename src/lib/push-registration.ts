/**
 * Opening an end-to-end-encrypted push registration (spec 2.14, 4.14) as the push relay
 * does: the ciphertext is a libsodium sealed box to one of the relay's public keys; the
 * plaintext is JSON {token, token_kind, ios_app_id?, timestamp}, validated as upstream.
 */
import sodium from "libsodium-wrappers";

export const TOKEN_KINDS = ["apns", "fcm"] as const;
export const MAX_TOKEN_LENGTH = 4096;
/** A registration older than this is refused (upstream: one day). */
export const REGISTRATION_MAX_AGE_SECONDS = 86400;

export interface OpenedRegistration {
  token: string;
  tokenKind: (typeof TOKEN_KINDS)[number];
  iosAppId: string | null;
}

export type RegistrationOutcome = { ok: true; registration: OpenedRegistration } | { ok: false; errorCode: "INVALID_BOUNCER_PUBLIC_KEY" | "BAD_REQUEST" | "REQUEST_EXPIRED" };

const invalid = { ok: false, errorCode: "BAD_REQUEST" } as const;

function fromStandardBase64(text: string): Uint8Array | null {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  return new Uint8Array(Buffer.from(text, "base64"));
}

/** keys: base64 public key → base64 private key; now: UNIX seconds. */
export async function openPushRegistration(
  keys: ReadonlyMap<string, string>,
  bouncerPublicKey: string,
  encrypted: string,
  now: number,
): Promise<RegistrationOutcome> {
  const privateKey = keys.get(bouncerPublicKey);
  if (privateKey === undefined) return { ok: false, errorCode: "INVALID_BOUNCER_PUBLIC_KEY" };
  await sodium.ready;
  const ciphertext = fromStandardBase64(encrypted);
  if (ciphertext === null) return invalid;
  let plaintext: string;
  try {
    plaintext = sodium.to_string(sodium.crypto_box_seal_open(ciphertext, fromStandardBase64(bouncerPublicKey)!, fromStandardBase64(privateKey)!));
  } catch {
    return invalid;
  }
  let data: unknown;
  try {
    data = JSON.parse(plaintext);
  } catch {
    return invalid;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return invalid;
  const { token, token_kind: kind, ios_app_id: appId, timestamp } = data as Record<string, unknown>;
  if (typeof token !== "string" || typeof kind !== "string" || !Number.isSafeInteger(timestamp)) return invalid;
  if (appId !== undefined && appId !== null && (typeof appId !== "string" || !/^[.a-zA-Z0-9-]+$/.test(appId))) return invalid;
  if (!(TOKEN_KINDS as readonly string[]).includes(kind)) return invalid;
  const iosAppId = (appId as string | null | undefined) ?? null;
  if (kind === "apns" && iosAppId === null) return invalid;
  if (kind === "fcm" && iosAppId !== null) return invalid;
  if (token === "" || token.length > MAX_TOKEN_LENGTH) return invalid;
  if (kind === "apns" && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) return invalid;
  if (now - (timestamp as number) > REGISTRATION_MAX_AGE_SECONDS) return { ok: false, errorCode: "REQUEST_EXPIRED" };
  return { ok: true, registration: { token, tokenKind: kind as OpenedRegistration["tokenKind"], iosAppId } };
}

export interface ApiPushDevice {
  status: "active" | "pending" | "failed";
  error_code: string | null;
}
