/** Custom emoji: GET /realm/emoji and DELETE /realm/emoji/{emoji_name} (uploading is not built yet). */
import { doDeactivateRealmEmoji } from "../../actions/realm-emoji.js";
import { toApiRealmEmoji } from "../../api-records/realm-emoji.js";
import { listRealmEmoji } from "../../db/queries/initial-state.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** GET /api/v1/realm/emoji */
async function listEmoji(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  return { emoji: toApiRealmEmoji(req.realm.id, await listRealmEmoji(req.ctx.db, req.realm.id)) };
}

/** DELETE /api/v1/realm/emoji/{emoji_name} */
async function deactivateEmoji(req: AuthedRequest): Promise<ViewResult> {
  parseParams(req, {});
  await doDeactivateRealmEmoji(req.ctx, req.realm, req.user, req.pathParams.emoji_name ?? "");
  return {};
}

export const routes = [route("GET", "/realm/emoji", listEmoji), route("DELETE", "/realm/emoji/{emoji_name}", deactivateEmoji)];
