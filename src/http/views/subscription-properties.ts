/** POST /users/me/subscriptions/properties: a subscriber's per-channel settings. */
import { doChangeSubscriptionProperties } from "../../actions/subscription-properties.js";
import { p, v } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

const subscriptionData = v.list(v.dict({ stream_id: v.int(), property: v.str(), value: v.oneOfTypes(v.bool(), v.str()) }));

/** POST /api/v1/users/me/subscriptions/properties */
async function updateSubscriptionProperties(req: AuthedRequest): Promise<ViewResult> {
  const { subscription_data } = parseParams(req, { subscription_data: p.json(subscriptionData) });
  await doChangeSubscriptionProperties(req.ctx, req.realm, req.user, subscription_data);
  return {};
}

export const routes = [route("POST", "/users/me/subscriptions/properties", updateSubscriptionProperties)];
