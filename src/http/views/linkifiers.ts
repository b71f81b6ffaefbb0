/** Linkifiers (spec 4.18): list for everyone; add, update, remove, reorder for administrators. */
import { doAddLinkifier, doRemoveLinkifier, doReorderLinkifiers, doUpdateLinkifier, toApiLinkifier } from "../../actions/linkifiers.js";
import { listLinkifiers } from "../../db/queries/linkifiers.js";
import { mustBeAdmin } from "../../errors.js";
import { isAdmin } from "../../lib/roles.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

function requireAdmin(req: AuthedRequest): void {
  if (!isAdmin(req.user)) throw mustBeAdmin();
}

/** GET /api/v1/realm/linkifiers */
async function list(req: AuthedRequest): Promise<ViewResult> {
  // Upstream's view takes no parameters and does not report ignored ones.
  return { linkifiers: (await listLinkifiers(req.ctx.db, req.user.realm_id)).map(toApiLinkifier) };
}

/** POST /api/v1/realm/filters */
async function add(req: AuthedRequest): Promise<ViewResult> {
  requireAdmin(req);
  const { pattern, url_template } = parseParams(req, { pattern: p.str(), url_template: p.str() });
  return { id: await doAddLinkifier(req.ctx, req.realm, pattern, url_template) };
}

/** PATCH /api/v1/realm/filters/{filter_id} */
async function update(req: AuthedRequest): Promise<ViewResult> {
  requireAdmin(req);
  const id = pathInt(req, "filter_id");
  const { pattern, url_template } = parseParams(req, { pattern: p.str(), url_template: p.str() });
  await doUpdateLinkifier(req.ctx, req.realm, id, pattern, url_template);
  return {};
}

/** DELETE /api/v1/realm/filters/{filter_id} */
async function remove(req: AuthedRequest): Promise<ViewResult> {
  requireAdmin(req);
  const id = pathInt(req, "filter_id");
  parseParams(req, {});
  await doRemoveLinkifier(req.ctx, req.realm, id);
  return {};
}

/** PATCH /api/v1/realm/linkifiers */
async function reorder(req: AuthedRequest): Promise<ViewResult> {
  requireAdmin(req);
  const { ordered_linkifier_ids } = parseParams(req, { ordered_linkifier_ids: p.intList() });
  await doReorderLinkifiers(req.ctx, req.realm, ordered_linkifier_ids);
  return {};
}

export const routes = [
  route("GET", "/realm/linkifiers", list),
  route("POST", "/realm/filters", add),
  route("PATCH", "/realm/filters/{filter_id:int}", update),
  route("DELETE", "/realm/filters/{filter_id:int}", remove),
  route("PATCH", "/realm/linkifiers", reorder),
];
