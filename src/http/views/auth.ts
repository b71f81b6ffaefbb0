/** POST /api/v1/fetch_api_key: trade an email and password for the API key. */
import { ApiError } from "../../errors.js";
import { enforceLoginAttempts } from "../login-lockout.js";
import { loginAttemptRule } from "../../lib/login-attempts.js";
import { findUserByDeliveryEmail } from "../../db/queries/users.js";
import { verifyPassword } from "../../lib/secrets.js";
import { isValidEmail } from "../../lib/user-validation.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { ApiRequest, ViewResult } from "../request.js";
import { publicRoute } from "../route.js";

/** POST /api/v1/fetch_api_key */
async function fetchApiKey(req: ApiRequest): Promise<ViewResult> {
  const { username, password } = parseParams(req, { username: p.str(), password: p.str() });
  const email = username.trim();
  if (!isValidEmail(email)) throw new ApiError("Enter a valid email address.");
  const attempts = loginAttemptRule(req.ctx.config, req.realm.id, email);
  // Counted before the password is checked (as upstream), so parallel guesses cannot all
  // reach the hash; a successful login clears the count.
  if (attempts) await enforceLoginAttempts(req.ctx, req.realm.id, email, attempts.key, attempts.rule);
  const user = await findUserByDeliveryEmail(req.ctx.db, req.realm.id, email);
  // Verify even when the user is unknown, so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) {
    throw new ApiError("Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
  }
  if (req.realm.deactivated) {
    throw new ApiError("This organization has been deactivated", { status: 401, code: "REALM_DEACTIVATED" });
  }
  if (!user.is_active) throw new ApiError("Account is deactivated", { status: 401, code: "USER_DEACTIVATED" });
  if (attempts) await req.ctx.rateLimiter.clear(attempts.key);
  return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
}

// A valid scrypt hash of a random password: makes the unknown-user path cost the same.
const DUMMY_HASH =
  "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

export const routes = [publicRoute("POST", "/fetch_api_key", fetchApiKey, "none")];
