/** Drafts (spec 2.2, 4.7): GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. */
import { doCreateDrafts, doDeleteDraft, doEditDraft } from "../../actions/drafts.js";
import { toApiDraft } from "../../api-records/draft.js";
import { nowSeconds } from "../../context.js";
import { findOwnDraft, listDrafts } from "../../db/queries/drafts.js";
import type { Draft } from "../../db/schema.js";
import { ApiError, ResourceNotFoundError } from "../../errors.js";
import { DRAFTS_DISABLED, validateDraft, type DraftInput, type ValidDraft } from "../../lib/drafts.js";
import { realmHost } from "../../lib/realm-host.js";
import { p, v, type Validator } from "../params/kinds.js";
import { paramMessages as m } from "../params/messages.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** Upstream's typed parsing reports a bad timestamp through its union's first branch. */
const timestamp: Validator<number | null | undefined> = (value, name) => {
  if (value === undefined || value === null) return value;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new ApiError(m.notInteger(`${name}["int"]`));
  return value;
};

/** Content must not be blank; the stored text is stripped of surrounding whitespace. */
const requiredString: Validator<string> = (value, name) => {
  const text = v.str()(value, name).trim();
  if (text === "") throw new ApiError(m.blank(name));
  return text;
};

/** The draft object (unknown keys such as `id` are refused). */
const draftShape = v.dict({
  type: v.str({ oneOf: ["", "stream", "private"] }),
  to: v.list(v.int()),
  topic: v.str(),
  content: requiredString,
  timestamp: v.optional(timestamp),
}) as Validator<DraftInput>;

/** Every drafts endpoint refuses users who turned synchronization off, before parsing. */
function checkSyncEnabled(req: AuthedRequest): void {
  if (!req.user.enable_drafts_synchronization) throw new ApiError(DRAFTS_DISABLED);
}

function validate(req: AuthedRequest, draft: DraftInput): Promise<ValidDraft> {
  return validateDraft(req.ctx.db, req.realm, req.user, realmHost(req.realm.string_id, req.ctx.config.externalHost), draft, nowSeconds(req.ctx));
}

async function ownDraft(req: AuthedRequest, draftId: number): Promise<Draft> {
  const draft = await findOwnDraft(req.ctx.db, req.realm.id, req.user.id, draftId);
  if (!draft) throw new ResourceNotFoundError("Draft does not exist");
  return draft;
}

/** GET /api/v1/drafts (no parameters; upstream reports none as ignored). */
async function fetchDrafts(req: AuthedRequest): Promise<ViewResult> {
  checkSyncEnabled(req);
  const drafts = (await listDrafts(req.ctx.db, req.realm.id, req.user.id)).map(toApiDraft);
  return { count: drafts.length, drafts };
}

/** POST /api/v1/drafts */
async function createDrafts(req: AuthedRequest): Promise<ViewResult> {
  checkSyncEnabled(req);
  const params = parseParams(req, { drafts: p.json(v.list(draftShape)) });
  const valid: ValidDraft[] = [];
  for (const draft of params.drafts) valid.push(await validate(req, draft));
  return { ids: await doCreateDrafts(req.ctx, req.realm, req.user, valid) };
}

/** PATCH /api/v1/drafts/{draft_id} (spec 4.7) */
async function editDraft(req: AuthedRequest): Promise<ViewResult> {
  checkSyncEnabled(req);
  const draftId = pathInt(req, "draft_id");
  const params = parseParams(req, { draft: p.json(draftShape) });
  const draft = await ownDraft(req, draftId);
  await doEditDraft(req.ctx, req.realm, req.user, draft, await validate(req, params.draft));
  return {};
}

/** DELETE /api/v1/drafts/{draft_id} */
async function deleteDraft(req: AuthedRequest): Promise<ViewResult> {
  checkSyncEnabled(req);
  const draft = await ownDraft(req, pathInt(req, "draft_id"));
  await doDeleteDraft(req.ctx, req.realm, req.user, draft);
  return {};
}

export const routes = [
  route("GET", "/drafts", fetchDrafts),
  route("POST", "/drafts", createDrafts),
  route("PATCH", "/drafts/{draft_id:int}", editDraft),
  route("DELETE", "/drafts/{draft_id:int}", deleteDraft),
];
