/**
 * POST /messages/render: the HTML a message with this content would get (the compose box's
 * preview), from the send path's own rules: the same normalization (empty content refused,
 * long content truncated at the organization's limit), the same renderer with the same
 * mentions, channel links, linkifiers and emoji. Nothing is stored and no event is sent.
 */
import { normalizeContent } from "../../lib/message-content.js";
import { renderMessageContent } from "../../lib/message-render.js";
import { realmUrl } from "../../lib/realm-host.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

async function renderMessage(req: AuthedRequest): Promise<ViewResult> {
  const { content } = parseParams(req, { content: p.str() });
  const normalized = normalizeContent(content, req.realm.max_message_length);
  const rendered = await renderMessageContent(req.ctx.db, req.realm, realmUrl(req.realm.string_id, req.ctx.config.externalHost), normalized);
  return { rendered: rendered.html };
}

export const routes = [route("POST", "/messages/render", renderMessage)];
