/** Changing users: PATCH/DELETE /users/{id}, reactivate, POST /users, DELETE /users/me. */
import { ApiError, mustBeAdmin } from "../../errors.js";
import { doCreateUser } from "../../actions/users-create.js";
import { doDeactivateUser, doReactivateUser, doUpdateUser } from "../../actions/users.js";
import { findUserByDeliveryEmail } from "../../db/queries/users.js";
import { parseProfileDataList } from "../../lib/custom-profile-fields.js";
import { ALL_ROLES, isAdmin, isOwner, Role } from "../../lib/roles.js";
import { checkFullName, checkPasswordStrength, isValidEmail, normalizeEmail } from "../../lib/user-validation.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** PATCH /api/v1/users/{user_id} */
async function updateUser(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    full_name: p.str().optional(),
    role: p.int({ oneOf: ALL_ROLES }).optional(),
    profile_data: p.json((raw, name) => parseProfileDataList(raw, name, true)).optional(),
    new_email: p.str().optional(),
  });
  await doUpdateUser(req.ctx, req.realm, req.user, pathInt(req, "user_id"), {
    fullName: params.full_name,
    role: params.role,
    profileData: params.profile_data,
    newEmail: params.new_email,
  });
  return {};
}

/** DELETE /api/v1/users/{user_id} */
async function deactivateUser(req: AuthedRequest): Promise<ViewResult> {
  // Accepted for compatibility; this server sends no notification emails.
  parseParams(req, { deactivation_notification_comment: p.str({ maxLength: 2000 }).optional() });
  await doDeactivateUser(req.ctx, req.realm, req.user, pathInt(req, "user_id"), false);
  return {};
}

/** DELETE /api/v1/users/me */
async function deactivateOwnUser(req: AuthedRequest): Promise<ViewResult> {
  await doDeactivateUser(req.ctx, req.realm, req.user, req.user.id, true);
  return {};
}

/** POST /api/v1/users/{user_id}/reactivate */
async function reactivateUser(req: AuthedRequest): Promise<ViewResult> {
  await doReactivateUser(req.ctx, req.realm, req.user, pathInt(req, "user_id"));
  return {};
}

/**
 * POST /api/v1/users. Upstream also requires the can_create_users special permission of every
 * caller; here owners may always create users (so a fresh organization is usable) and other
 * administrators need that permission.
 */
async function createUser(req: AuthedRequest): Promise<ViewResult> {
  if (!isAdmin(req.user)) throw mustBeAdmin();
  const { email, password, full_name } = parseParams(req, { email: p.str(), password: p.str(), full_name: p.str() });
  if (!isOwner(req.user) && !req.user.can_create_users) throw new ApiError("User not authorized to create users");
  const name = checkFullName(full_name);
  if (!isValidEmail(normalizeEmail(email))) throw new ApiError("Bad name or username");
  if (await findUserByDeliveryEmail(req.ctx.db, req.realm.id, normalizeEmail(email))) {
    throw new ApiError(`Email '${email}' already in use`);
  }
  checkPasswordStrength(password);
  const user = await doCreateUser(req.ctx, req.realm, { email, fullName: name, password, role: Role.MEMBER });
  return { user_id: user.id };
}

export const routes = [
  route("DELETE", "/users/me", deactivateOwnUser),
  route("POST", "/users", createUser),
  route("PATCH", "/users/{user_id:int}", updateUser),
  route("DELETE", "/users/{user_id:int}", deactivateUser),
  route("POST", "/users/{user_id:int}/reactivate", reactivateUser),
];

