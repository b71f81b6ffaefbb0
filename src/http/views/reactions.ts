/** Emoji reactions: POST and DELETE /messages/{message_id}/reactions (spec 4.13). */
import { doAddReaction, doRemoveReaction } from "../../actions/reactions.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/messages/{message_id}/reactions */
async function addReaction(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, {
    emoji_name: p.str(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().optional(),
  });
  await doAddReaction(req.ctx, req.realm, req.user, messageId, {
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
  });
  return {};
}

/** DELETE /api/v1/messages/{message_id}/reactions */
async function removeReaction(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, {
    emoji_name: p.str().optional(),
    emoji_code: p.str().optional(),
    reaction_type: p.str().default("unicode_emoji"),
  });
  await doRemoveReaction(req.ctx, req.realm, req.user, messageId, {
    emojiName: params.emoji_name,
    emojiCode: params.emoji_code,
    reactionType: params.reaction_type,
  });
  return {};
}

export const routes = [
  route("POST", "/messages/{message_id:int}/reactions", addReaction),
  route("DELETE", "/messages/{message_id:int}/reactions", removeReaction),
];
