/** Navigation views (spec 4.16): the caller's own list of pinned and custom views. */
import { doAddNavigationView, doRemoveNavigationView, doUpdateNavigationView } from "../../actions/navigation-views.js";
import { listNavigationViews } from "../../db/queries/navigation-views.js";
import { ApiError } from "../../errors.js";
import { toApiNavigationView } from "../../lib/navigation-views.js";
import { p } from "../params/kinds.js";
import { paramMessages as m } from "../params/messages.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** Upstream strips the value, then requires at least one character. */
const stripped = () => p.str({ nonBlank: true });

function pathFragment(req: AuthedRequest): string {
  const fragment = (req.pathParams.fragment ?? "").trim();
  if (fragment === "") throw new ApiError(m.blank("fragment"));
  return fragment;
}

/** GET /api/v1/navigation_views (upstream's view takes no parameters and reports no ignored ones). */
async function list(req: AuthedRequest): Promise<ViewResult> {
  return { navigation_views: (await listNavigationViews(req.ctx.db, req.realm.id, req.user.id)).map(toApiNavigationView) };
}

/** POST /api/v1/navigation_views */
async function add(req: AuthedRequest): Promise<ViewResult> {
  const { fragment, is_pinned, name } = parseParams(req, { fragment: stripped(), is_pinned: p.bool(), name: stripped().optional() });
  await doAddNavigationView(req.ctx, req.user, fragment.trim(), is_pinned, name === undefined ? null : name.trim());
  return {};
}

/** PATCH /api/v1/navigation_views/{fragment}: the fragment is the rest of the path, slashes included. */
async function update(req: AuthedRequest): Promise<ViewResult> {
  const fragment = pathFragment(req);
  const { is_pinned, name } = parseParams(req, { is_pinned: p.bool().optional(), name: stripped().optional() });
  await doUpdateNavigationView(req.ctx, req.user, fragment, is_pinned, name?.trim());
  return {};
}

/** DELETE /api/v1/navigation_views/{fragment} (as upstream, no parameter framework: extras are not reported). */
async function remove(req: AuthedRequest): Promise<ViewResult> {
  const fragment = pathFragment(req);
  await doRemoveNavigationView(req.ctx, req.user, fragment);
  return {};
}

export const routes = [
  route("GET", "/navigation_views", list),
  route("POST", "/navigation_views", add),
  route("PATCH", "/navigation_views/{fragment*}", update),
  route("DELETE", "/navigation_views/{fragment*}", remove),
];
