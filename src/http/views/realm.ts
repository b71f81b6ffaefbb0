/** Organization settings: PATCH /realm (administrators). The settings are listed in lib/realm-settings.ts. */
import { doUpdateRealmSettings, type RealmSettingChange } from "../../actions/realm-settings.js";
import { mustBeAdmin } from "../../errors.js";
import { REALM_SETTINGS, type SettingParser } from "../../lib/realm-settings.js";
import { isAdmin } from "../../lib/roles.js";
import { p, type Param } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const PARSERS: Record<SettingParser, () => Param<unknown>> = {
  bool: () => p.bool(),
  int: () => p.int(),
  nonNegativeInt: () => p.int({ min: 0 }),
};

/** PATCH /api/v1/realm */
async function updateRealm(req: AuthedRequest): Promise<ViewResult> {
  if (!isAdmin(req.user)) throw mustBeAdmin();
  const spec = Object.fromEntries(Object.entries(REALM_SETTINGS).map(([name, s]) => [name, PARSERS[s.parser]().optional()]));
  const params = parseParams(req, spec);
  const changes: RealmSettingChange[] = [];
  for (const [name, setting] of Object.entries(REALM_SETTINGS)) {
    if (params[name] === undefined) continue;
    changes.push({ name, stored: await setting.check(req.ctx.db, req.user, params[name]) });
  }
  return doUpdateRealmSettings(req.ctx, req.realm, changes);
}

export const routes = [route("PATCH", "/realm", updateRealm)];
