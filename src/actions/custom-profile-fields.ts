/** Creating custom profile fields and changing users' values for them. */
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { CustomProfileField, Realm, User } from "../db/schema.js";
import {
  deleteProfileValue,
  findProfileFieldByName,
  findProfileValue,
  insertProfileField,
  listProfileFields,
  upsertProfileValue,
} from "../db/queries/custom-profile-fields.js";
import { activeUserIds } from "../db/queries/users.js";
import { sendEventOnCommit } from "../events/send.js";
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  FieldType,
  isDefaultExternalField,
  isRenderable,
  checkProfileSummaryLimit,
  renderMarkdownValue,
  toApiProfileField,
  validateFieldValue,
  type FieldData,
  type ProfileDataUpdate,
} from "../lib/custom-profile-fields.js";
import { isAdmin } from "../lib/roles.js";
import { userIdsWhoCanAccess } from "../lib/users.js";
import { realmUrl } from "../lib/realm-host.js";

export interface CreateFieldInput {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** Creates a field (definition already validated) and sends every client the new field list. */
export async function doCreateProfileField(ctx: AppContext, realm: Realm, input: CreateFieldInput): Promise<CustomProfileField> {
  return withTransaction(ctx.db, async (tx) => {
    const existing = await listProfileFields(tx, realm.id);
    // Checked again here, inside the transaction, against concurrent creations.
    if (input.displayInProfileSummary) await checkProfileSummaryLimit(tx, realm.id);
    let { name, hint } = input;
    let fieldData = "";
    if (isDefaultExternalField(input.fieldType, input.fieldData)) {
      const subtype = String(input.fieldData.subtype);
      ({ name, hint } = DEFAULT_EXTERNAL_ACCOUNTS[subtype]);
      fieldData = JSON.stringify({ subtype });
    } else if (input.fieldType === FieldType.SELECT || input.fieldType === FieldType.EXTERNAL_ACCOUNT) {
      fieldData = JSON.stringify(input.fieldData);
    }
    if (await findProfileFieldByName(tx, realm.id, name)) throw new ApiError("A field with that label already exists.");
    const field = await insertProfileField(tx, realm.id, {
      name,
      hint,
      field_type: input.fieldType,
      field_data: fieldData,
      display_in_profile_summary: input.displayInProfileSummary ? 1 : 0,
      required: input.required ? 1 : 0,
      editable_by_user: input.editableByUser ? 1 : 0,
    });
    const fields = [...existing, field].sort((a, b) => a.order - b.order || a.id - b.id);
    // Field definitions are realm-wide configuration: every active user's clients need them.
    sendEventOnCommit(tx, ctx, realm.id, { type: "custom_profile_fields", fields: fields.map(toApiProfileField) }, await activeUserIds(tx, realm.id));
    return field;
  });
}

export interface ApplyProfileDataOptions {
  /** The user making the change (the target itself, or an administrator). */
  actor: Pick<User, "id" | "role">;
  /** Enforce editable_by_user for non-administrators (self-service edits). */
  checkEditable: boolean;
}

/**
 * Validates every update (first error wins, nothing written on error since the caller's
 * transaction rolls back), then stores changed values and announces each change.
 * A null, "" or [] value removes the user's value.
 */
export async function applyProfileDataInTx(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  target: User,
  updates: readonly ProfileDataUpdate[],
  opts: ApplyProfileDataOptions,
): Promise<void> {
  const fields = new Map((await listProfileFields(tx, realm.id)).map((f) => [f.id, f]));
  const lookupUsers = (ids: number[]) =>
    ids.length === 0
      ? Promise.resolve([])
      : tx.selectFrom("users").select(["id", "is_active", "is_bot"]).where("realm_id", "=", realm.id).where("id", "in", ids).execute();
  const planned: Array<{ field: CustomProfileField; value: string | null }> = [];
  for (const update of updates) {
    const field = fields.get(update.id);
    if (!field) throw new ApiError(`Field id ${update.id} not found.`);
    if (opts.checkEditable && !field.editable_by_user && !isAdmin(opts.actor)) {
      throw new ApiError("You are not allowed to change this field. Contact an administrator to update it.");
    }
    const empty = update.value === null || update.value === "" || (Array.isArray(update.value) && update.value.length === 0);
    planned.push({ field, value: empty ? null : await validateFieldValue(field, update.value!, lookupUsers) });
  }
  // Profile values are visible to everyone who can access the user (limited guests may not).
  const audience = await userIdsWhoCanAccess(tx, realm.id, target);
  for (const { field, value } of planned) {
    let event: Record<string, unknown> | undefined;
    if (value === null) {
      if ((await deleteProfileValue(tx, target.id, field.id)) > 0) event = { id: field.id, value: null };
    } else {
      const existing = await findProfileValue(tx, target.id, field.id);
      if (existing && existing.value === value) continue;
      const rendered = isRenderable(field.field_type) ? renderMarkdownValue(value, realmUrl(realm.string_id, ctx.config.externalHost)) : null;
      await upsertProfileValue(tx, realm.id, { user_id: target.id, field_id: field.id, value, rendered_value: rendered }, existing !== undefined);
      event = rendered === null ? { id: field.id, value } : { id: field.id, value, rendered_value: rendered };
    }
    if (event) {
      sendEventOnCommit(tx, ctx, realm.id, { type: "realm_user", op: "update", person: { user_id: target.id, custom_profile_field: event } }, audience);
    }
  }
}

/** PATCH /users/me/profile_data: a user edits their own values. */
export async function doUpdateOwnProfileData(ctx: AppContext, realm: Realm, user: User, updates: readonly ProfileDataUpdate[]): Promise<void> {
  await withTransaction(ctx.db, (tx) => applyProfileDataInTx(tx, ctx, realm, user, updates, { actor: user, checkEditable: true }));
}
