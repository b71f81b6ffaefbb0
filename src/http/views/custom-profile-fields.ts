/** Custom profile fields: GET/POST /realm/profile_fields, PATCH /users/me/profile_data. */
import { ApiError, mustBeAdmin } from "../../errors.js";
import { doCreateProfileField, doUpdateOwnProfileData } from "../../actions/custom-profile-fields.js";
import { listProfileFields } from "../../db/queries/custom-profile-fields.js";
import { checkProfileSummaryLimit, parseProfileDataList, toApiProfileField, validateFieldDefinition, type FieldData } from "../../lib/custom-profile-fields.js";
import { isAdmin } from "../../lib/roles.js";
import { p } from "../params/kinds.js";
import { parseParams } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** GET /api/v1/realm/profile_fields */
async function listFields(req: AuthedRequest): Promise<ViewResult> {
  const fields = await listProfileFields(req.ctx.db, req.realm.id);
  return { custom_fields: fields.map(toApiProfileField) };
}

/** field_data: an object whose values are strings or objects of strings. */
function fieldDataValidator(raw: unknown, name: string): FieldData {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ApiError(`${name} is not a dict`);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const ok =
      typeof value === "string" ||
      (typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((x) => typeof x === "string"));
    if (!ok) throw new ApiError(`${name}["${key}"] is not an allowed_type`);
  }
  return raw as FieldData;
}

/** POST /api/v1/realm/profile_fields */
async function createField(req: AuthedRequest): Promise<ViewResult> {
  if (!isAdmin(req.user)) throw mustBeAdmin();
  const params = parseParams(req, {
    name: p.str().default(""),
    hint: p.str().default(""),
    field_data: p.json(fieldDataValidator).default({}),
    field_type: p.int(),
    display_in_profile_summary: p.bool().default(false),
    required: p.bool().default(false),
    editable_by_user: p.bool().default(true),
  });
  const input = {
    name: params.name.trim(),
    hint: params.hint,
    fieldType: params.field_type,
    fieldData: params.field_data,
    displayInProfileSummary: params.display_in_profile_summary,
    required: params.required,
    editableByUser: params.editable_by_user,
  };
  if (input.displayInProfileSummary) await checkProfileSummaryLimit(req.ctx.db, req.realm.id);
  validateFieldDefinition(input);
  const field = await doCreateProfileField(req.ctx, req.realm, input);
  return { id: field.id };
}

/** PATCH /api/v1/users/me/profile_data */
async function updateOwnProfileData(req: AuthedRequest): Promise<ViewResult> {
  if (req.user.is_bot) throw new ApiError("This endpoint does not accept bot requests.");
  const { data } = parseParams(req, { data: p.json((raw, name) => parseProfileDataList(raw, name, true)) });
  await doUpdateOwnProfileData(req.ctx, req.realm, req.user, data);
  return {};
}

export const routes = [
  route("GET", "/realm/profile_fields", listFields),
  route("POST", "/realm/profile_fields", createField),
  route("PATCH", "/users/me/profile_data", updateOwnProfileData),
];
