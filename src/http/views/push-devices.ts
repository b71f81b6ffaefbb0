/** POST /api/v1/mobile_push/register (spec 4.14): end-to-end-encrypted push registration. */
import { doRegisterPushDevice } from "../../actions/push-devices.js";
import { pushServiceConfigured } from "../../config.js";
import { ApiError } from "../../errors.js";
import { TOKEN_KINDS } from "../../lib/push-registration.js";
import { p, Param } from "../params/kinds.js";
import { paramMessages as m } from "../params/messages.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** One of the two token kinds, with upstream's value-list message. */
const tokenKind = () =>
  new Param<string>((raw, name) => {
    if (!(TOKEN_KINDS as readonly string[]).includes(raw)) throw new ApiError(m.notInList(name));
    return raw;
  });

async function register(req: AuthedRequest): Promise<ViewResult> {
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
  const params = parseParams(req, {
    token_kind: tokenKind(),
    push_account_id: p.int(),
    push_public_key: p.str(),
    bouncer_public_key: p.str(),
    encrypted_push_registration: p.str(),
  });
  if (!pushServiceConfigured(req.ctx.config)) {
    throw new ApiError("Server is not configured to use push notification service.", { code: "PUSH_SERVICE_NOT_CONFIGURED" });
  }
  await doRegisterPushDevice(req.ctx, req.user, params.push_account_id, {
    token_kind: params.token_kind,
    push_public_key: params.push_public_key,
    bouncer_public_key: params.bouncer_public_key,
    encrypted_push_registration: params.encrypted_push_registration,
  });
  return {};
}

export const routes = [route("POST", "/mobile_push/register", register)];
