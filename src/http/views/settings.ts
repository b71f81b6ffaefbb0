/** Own settings: PATCH /settings (upstream json_change_settings) for the settings Parley stores. */
import { doChangePassword } from "../../actions/password-change.js";
import { doChangeSettings } from "../../actions/settings.js";
import { ApiError } from "../../errors.js";
import { EmailVisibility } from "../../lib/roles.js";
import { isKnownTimezone, LANGUAGE_NAMES } from "../../lib/settings.js";
import { p, Param } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const EMAIL_VISIBILITY_VALUES = Object.values(EmailVisibility);

/** A time zone name the runtime knows, checked while parsing (as upstream's check_timezone). */
const timezoneParam = () =>
  new Param<string>((raw, name) => {
    if (!isKnownTimezone(raw)) throw new ApiError(`${name} is not a recognized time zone`);
    return raw;
  });

/** PATCH /api/v1/settings */
async function changeSettings(req: AuthedRequest): Promise<ViewResult> {
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
  const params = parseParams(req, {
    full_name: p.str().optional(),
    default_language: p.str().optional(),
    timezone: timezoneParam().optional(),
    enable_drafts_synchronization: p.bool().optional(),
    presence_enabled: p.bool().optional(),
    email_address_visibility: p.int({ oneOf: EMAIL_VISIBILITY_VALUES }).optional(),
    old_password: p.str().optional(),
    new_password: p.str().optional(),
  });
  if (params.default_language !== undefined && !Object.hasOwn(LANGUAGE_NAMES, params.default_language)) {
    throw new ApiError("Invalid default_language");
  }
  // As upstream: the password first; a refused change leaves every other setting alone.
  if (params.new_password !== undefined) {
    await doChangePassword(req.ctx, req.realm, req.user, params.old_password ?? "", params.new_password, req.sessionId);
  }
  await doChangeSettings(req.ctx, req.realm, req.user, {
    fullName: params.full_name,
    defaultLanguage: params.default_language,
    timezone: params.timezone,
    enableDraftsSynchronization: params.enable_drafts_synchronization,
    presenceEnabled: params.presence_enabled,
    emailAddressVisibility: params.email_address_visibility,
  });
  return {};
}

export const routes = [route("PATCH", "/settings", changeSettings)];
