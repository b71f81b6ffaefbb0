/** User status: POST /users/me/status, 4.6 POST /users/{user_id}/status (administrators), GET /users/{user_id}/status. */
import { doUpdateUserStatus, MAX_STATUS_TEXT_LENGTH, type UserStatusInput } from "../../actions/user-status.js";
import { toApiUserStatus } from "../../api-records/user-status.js";
import { findUserStatus } from "../../db/queries/user-status.js";
import { ApiError } from "../../errors.js";
import { accessUserById } from "../../lib/users.js";
import { paramMessages } from "../params/messages.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

function rejectBots(req: AuthedRequest): void {
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
}

function parseStatus(req: AuthedRequest): UserStatusInput {
  const params = parseParams(req, {
    status_text: p.str().optional(),
    emoji_name: p.str().optional(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  });
  const statusText = params.status_text?.trim();
  if (statusText !== undefined && [...statusText].length > MAX_STATUS_TEXT_LENGTH) {
    throw new ApiError(paramMessages.tooLong("status_text", MAX_STATUS_TEXT_LENGTH));
  }
  return { statusText, emojiName: params.emoji_name, emojiCode: params.emoji_code, reactionType: params.reaction_type };
}

/** POST /api/v1/users/me/status */
async function updateOwnStatus(req: AuthedRequest): Promise<ViewResult> {
  rejectBots(req);
  await doUpdateUserStatus(req.ctx, req.realm, req.user, parseStatus(req));
  return {};
}

/** POST /api/v1/users/{user_id}/status: an administrator sets someone's status. */
async function updateUserStatus(req: AuthedRequest): Promise<ViewResult> {
  rejectBots(req);
  const userId = pathInt(req, "user_id");
  const input = parseStatus(req);
  const target = await accessUserById(req.ctx.db, req.user, userId, { forAdmin: true });
  await doUpdateUserStatus(req.ctx, req.realm, target, input);
  return {};
}

/** GET /api/v1/users/{user_id}/status */
async function getUserStatus(req: AuthedRequest): Promise<ViewResult> {
  const userId = pathInt(req, "user_id");
  parseParams(req, {});
  const target = await accessUserById(req.ctx.db, req.user, userId, { forAdmin: false });
  return { status: toApiUserStatus(await findUserStatus(req.ctx.db, req.realm.id, target.id)) };
}

export const routes = [
  route("POST", "/users/me/status", updateOwnStatus),
  route("POST", "/users/{user_id:int}/status", updateUserStatus),
  route("GET", "/users/{user_id:int}/status", getUserStatus),
];
