/** Presence: report one's own presence and read others' (spec 4.3, 2.4). */
import { doUpdateUserPresence } from "../../actions/presence.js";
import { nowSeconds } from "../../context.js";
import { findPresence } from "../../db/queries/presence.js";
import { ApiError } from "../../errors.js";
import { toLegacyPresence } from "../../api-records/presence.js";
import { PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT, PRESENCE_OFFLINE_THRESHOLD_SECONDS, presenceVisibleUserIds } from "../../lib/presence.js";
import { getPresenceData, presenceForPoll, readIncrementalPoll } from "../../lib/presence-data.js";
import { serializedFields } from "../response.js";
import { accessUserByEmailForRead, accessUserById, noSuchUser } from "../../lib/users.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import { realmHost } from "../../lib/realm-host.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const noBots = () => new ApiError("This endpoint does not accept bot requests.");

const UPDATE_PRESENCE_PARAMS = {
  history_limit_days: p.int().optional(),
  last_update_id: p.int().optional(),
  new_user_input: p.bool().default(false),
  ping_only: p.bool().default(false),
  slim_presence: p.bool().default(false),
  status: p.str(),
};

/** POST /api/v1/users/me/presence */
async function updatePresence(req: AuthedRequest): Promise<ViewResult> {
  if (req.user.is_bot) throw noBots();
  const params = parseParams(req, UPDATE_PRESENCE_PARAMS);
  if (params.status !== "active" && params.status !== "idle") throw new ApiError(`Invalid status: ${params.status}`);
  const now = nowSeconds(req.ctx);
  const query = {
    lastUpdateId: params.last_update_id,
    historyLimitDays: params.history_limit_days ?? PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT,
    modern: params.last_update_id !== undefined || params.slim_presence,
    nowSeconds: now,
    realmHost: realmHost(req.realm.string_id, req.ctx.config.externalHost),
  };
  // An incremental poll reads its answer with the caller's stored row, in one statement.
  const read = params.ping_only ? undefined : await readIncrementalPoll(req.ctx.db, req.realm, req.user, query);
  // The caller's own report is recorded first, so the answer includes it (read again if it wrote).
  const wrote = await doUpdateUserPresence(req.ctx, req.realm, req.user, params.status, now, read && { row: read.own });
  if (params.ping_only) return {};
  const answer = read && !wrote ? read.data : await presenceForPoll(req.ctx, req.realm, req.user, query);
  // Written out rather than stringified as one object: a poll's answer is small, and
  // JSON.stringify of the whole envelope (a float timestamp above all) was a tenth of its cost.
  // String() of a finite number is its JSON text.
  const tail = `,"server_timestamp":${String(req.ctx.now() / 1000)}`;
  if (typeof answer === "string") return serializedFields(answer + tail);
  return serializedFields(`"presences":${JSON.stringify(answer.presences)},"presence_last_update_id":${answer.presence_last_update_id}${tail}`);
}

/** GET /api/v1/realm/presence (supporting): everyone's presence in the legacy format. */
async function realmPresence(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  const data = await getPresenceData(req.ctx.db, req.realm, req.user, {
    historyLimitDays: PRESENCE_HISTORY_LIMIT_DAYS_DEFAULT,
    modern: false,
    nowSeconds: nowSeconds(req.ctx),
    realmHost: realmHost(req.realm.string_id, req.ctx.config.externalHost),
  });
  return { presences: data.presences, server_timestamp: req.ctx.now() / 1000 };
}

/** GET /api/v1/users/{user_id_or_email}/presence (supporting) */
async function userPresence(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  const raw = req.pathParams.user_id_or_email ?? "";
  const host = realmHost(req.realm.string_id, req.ctx.config.externalHost);
  const target = /^\d+$/.test(raw)
    ? await accessUserById(req.ctx.db, req.user, Number(raw), { forAdmin: false, allowBots: true, allowDeactivated: true })
    : await accessUserByEmailForRead(req.ctx.db, req.user, raw, host);
  if (target.is_bot) throw new ApiError("Presence is not supported for bot users.");
  const visible = await presenceVisibleUserIds(req.ctx.db, req.realm, req.user);
  if (visible !== null && !visible.has(target.id)) throw noSuchUser();
  const row = target.presence_enabled && !req.realm.presence_disabled ? await findPresence(req.ctx.db, req.realm.id, target.id) : undefined;
  if (!row) throw new ApiError(`No presence data for ${raw}`);
  const now = nowSeconds(req.ctx);
  const legacy = toLegacyPresence({ ...row, date_joined: target.date_joined }, now);
  const aggregated: { status: string; timestamp: number } = { status: legacy.aggregated.status, timestamp: legacy.aggregated.timestamp };
  if (now - aggregated.timestamp > PRESENCE_OFFLINE_THRESHOLD_SECONDS) aggregated.status = "offline";
  return { presence: { aggregated, website: { status: legacy.website.status, timestamp: legacy.website.timestamp } } };
}

export const routes = [
  route("POST", "/users/me/presence", updatePresence),
  route("GET", "/realm/presence", realmPresence),
  route("GET", "/users/{user_id_or_email}/presence", userPresence),
];
