/** POST /api/v1/fetch_api_key: trade an email and password for the API key. */
import { ApiError } from "../../errors.js";
import { isValidEmail } from "../../lib/user-validation.js";
import { checkPasswordLogin } from "../password-login.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { ApiRequest, ViewResult } from "../request.js";
import { publicRoute } from "../route.js";

/** POST /api/v1/fetch_api_key */
async function fetchApiKey(req: ApiRequest): Promise<ViewResult> {
  const { username, password } = parseParams(req, { username: p.str(), password: p.str() });
  const email = username.trim();
  if (!isValidEmail(email)) throw new ApiError("Enter a valid email address.");
  const login = await checkPasswordLogin(req.ctx, req.realm, email, password);
  if (!login.ok) {
    if (login.reason === "wrong-credentials") {
      throw new ApiError("Your username or password is incorrect", { status: 401, code: "AUTHENTICATION_FAILED" });
    }
    if (login.reason === "realm-deactivated") {
      throw new ApiError("This organization has been deactivated", { status: 401, code: "REALM_DEACTIVATED" });
    }
    throw new ApiError("Account is deactivated", { status: 401, code: "USER_DEACTIVATED" });
  }
  const { user } = login;
  return { api_key: user.api_key, email: user.delivery_email, user_id: user.id };
}

export const routes = [publicRoute("POST", "/fetch_api_key", fetchApiKey, "none")];
