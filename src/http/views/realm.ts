/** Organization settings: PATCH /realm (administrators; some owners only). The settings are listed in lib/realm-settings.ts. */
import { doUpdateRealmSettings, type RealmGroupSettingChange, type RealmSettingChange } from "../../actions/realm-settings.js";
import type { GroupSettingChange } from "../../actions/user-groups.js";
import { mustBeAdmin, mustBeOwner } from "../../errors.js";
import { checkRealmLanguage, REALM_SETTINGS, type SettingParser } from "../../lib/realm-settings.js";
import { REALM_GROUP_SETTINGS } from "../../lib/realm-group-settings.js";
import { isAdmin, isOwner } from "../../lib/roles.js";
import { p, v, type Param } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";
import { groupSettingChange } from "./user-groups.js";

function parserFor(kind: SettingParser): Param<unknown> {
  if (typeof kind === "object") return p.str({ maxLength: kind.maxLength });
  switch (kind) {
    case "bool":
      return p.bool();
    case "int":
      return p.int();
    case "nonNegativeInt":
      return p.int({ min: 0 });
    case "timeLimit":
      return p.json(v.oneOfTypes(v.int(), v.str()));
    case "language":
      return p.str();
  }
}

/**
 * PATCH /api/v1/realm: types first, then the language, then the owner-only settings, then
 * each value; group-valued settings take `{new, old?}` (upstream's order).
 */
async function updateRealm(req: AuthedRequest): Promise<ViewResult> {
  if (!isAdmin(req.user)) throw mustBeAdmin();
  const params = parseParams(req, {
    ...Object.fromEntries(Object.entries(REALM_SETTINGS).map(([name, s]) => [name, parserFor(s.parser).optional()])),
    ...Object.fromEntries(Object.keys(REALM_GROUP_SETTINGS).map((name) => [name, p.json(groupSettingChange).optional()])),
  });
  const given = Object.entries(REALM_SETTINGS).filter(([name]) => params[name] !== undefined);
  const givenGroups = Object.entries(REALM_GROUP_SETTINGS).filter(([name]) => params[name] !== undefined);
  if (typeof params.default_language === "string") checkRealmLanguage(params.default_language);
  if (!isOwner(req.user) && [...given, ...givenGroups].some(([, s]) => s.ownerOnly)) throw mustBeOwner();
  const changes: RealmSettingChange[] = [];
  for (const [name, setting] of given) changes.push({ name, stored: await setting.check(req.ctx.db, req.user, params[name]) });
  const groupChanges: RealmGroupSettingChange[] = givenGroups.map(([name]) => ({ name, change: params[name] as GroupSettingChange }));
  return doUpdateRealmSettings(req.ctx, req.realm, changes, groupChanges);
}

export const routes = [route("PATCH", "/realm", updateRealm)];
