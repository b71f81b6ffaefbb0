/** Changing the caller's message flags, by ids or for a narrow. */
import { ApiError } from "../../errors.js";
import { doUpdateMessageFlags } from "../../actions/message-flags.js";
import { parseNarrow, resolveNarrow } from "../../lib/narrow.js";
import { fetchWindow, MAX_MESSAGES_PER_FETCH, parseAnchor } from "../../lib/message-window.js";
import { realmHost } from "../../lib/realm-host.js";
import { MAX_FLAG_MESSAGE_IDS } from "../../lib/list-limits.js";
import { p } from "../params/kinds.js";
import { paramMessages } from "../params/messages.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/messages/flags */
async function updateMessageFlags(req: AuthedRequest): Promise<ViewResult> {
  const { messages, op, flag } = parseParams(req, { messages: p.intList({ maxLength: MAX_FLAG_MESSAGE_IDS }), op: p.str(), flag: p.str() });
  await doUpdateMessageFlags(req.ctx, req.realm, req.user, op, flag, messages);
  return { messages };
}

/** POST /api/v1/messages/flags/narrow */
async function updateMessageFlagsForNarrow(req: AuthedRequest): Promise<ViewResult> {
  const params = parseParams(req, {
    anchor: p.str(),
    include_anchor: p.bool().default(true),
    num_before: p.int({ min: 0 }),
    num_after: p.int({ min: 0 }),
    narrow: p.str(),
    op: p.str(),
    flag: p.str(),
  });
  const anchor = parseAnchor(params.anchor, false);
  if (params.num_before > 0 && params.num_after > 0 && !params.include_anchor) {
    throw new ApiError("The anchor can only be excluded at an end of the range");
  }
  // Clamp so that at most MAX_MESSAGES_PER_FETCH messages are processed, as upstream.
  const half = Math.floor(MAX_MESSAGES_PER_FETCH / 2);
  const numBefore = Math.min(params.num_before, Math.max(MAX_MESSAGES_PER_FETCH - params.num_after, half));
  const numAfter = Math.min(params.num_after, Math.max(MAX_MESSAGES_PER_FETCH - numBefore, half));
  const terms = parseNarrow(params.narrow, () => new ApiError(paramMessages.badValue("narrow", params.narrow)));
  const narrow = await resolveNarrow(req.ctx.db, req.user, req.realm, realmHost(req.realm.string_id, req.ctx.config.externalHost), terms);
  const window = await fetchWindow(
    req.ctx.db,
    { realmId: req.realm.id, userId: req.user.id, includeHistory: narrow.includeHistory, conditions: narrow.conditions },
    { anchor, numBefore, numAfter, includeAnchor: params.include_anchor },
  );
  const ids = window.rows.map((r) => r.id);
  const updated = await doUpdateMessageFlags(req.ctx, req.realm, req.user, params.op, params.flag, ids);
  return {
    processed_count: ids.length,
    updated_count: updated.length,
    first_processed_id: ids[0] ?? null,
    last_processed_id: ids.at(-1) ?? null,
    found_oldest: window.found_oldest,
    found_newest: window.found_newest,
  };
}

export const routes = [route("POST", "/messages/flags", updateMessageFlags), route("POST", "/messages/flags/narrow", updateMessageFlagsForNarrow)];
