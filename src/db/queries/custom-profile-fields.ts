/** Custom profile fields (per realm) and users' values for them. */
import type { CustomProfileField } from "../schema.js";
import type { Queryable } from "../tx.js";
import { compiledOnce } from "../compiled.js";

export async function listProfileFields(db: Queryable, realmId: number): Promise<CustomProfileField[]> {
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
}

export async function findProfileFieldByName(db: Queryable, realmId: number, name: string): Promise<CustomProfileField | undefined> {
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirst();
}

export interface NewProfileField {
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  display_in_profile_summary: number;
  required: number;
  editable_by_user: number;
}

/** Inserts a field; its order is its id (as upstream), so new fields come last. */
export async function insertProfileField(db: Queryable, realmId: number, field: NewProfileField): Promise<CustomProfileField> {
  const { id } = await db
    .insertInto("custom_profile_fields")
    .values({ realm_id: realmId, ...field })
    .returning("id")
    .executeTakeFirstOrThrow();
  await db.updateTable("custom_profile_fields").set({ order: id }).where("id", "=", id).execute();
  return db.selectFrom("custom_profile_fields").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

export interface ProfileValueRow {
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** Values of the given users (all users of the realm when userIds is undefined), in one query. */
export async function profileValuesForUsers(db: Queryable, realmId: number, userIds?: readonly number[]): Promise<ProfileValueRow[]> {
  let q = db
    .selectFrom("custom_profile_field_values")
    .select(["user_id", "field_id", "value", "rendered_value"])
    .where("realm_id", "=", realmId);
  if (userIds !== undefined) {
    if (userIds.length === 0) return [];
    q = q.where("user_id", "in", [...userIds]);
  }
  return q.orderBy("field_id").execute();
}

/** One user's profile values with each field's type, in one precompiled query (GET /users/me). */
export const profileValuesOfUserWithTypes = compiledOnce((db, realmId: number, userId: number) =>
  db
    .selectFrom("custom_profile_field_values as v")
    .innerJoin("custom_profile_fields as f", "f.id", "v.field_id")
    .select(["v.user_id", "v.field_id", "v.value", "v.rendered_value", "f.field_type"])
    .where("v.realm_id", "=", realmId)
    .where("v.user_id", "=", userId)
    .orderBy("v.field_id"),
);

export async function findProfileValue(db: Queryable, userId: number, fieldId: number): Promise<ProfileValueRow | undefined> {
  return db
    .selectFrom("custom_profile_field_values")
    .select(["user_id", "field_id", "value", "rendered_value"])
    .where("user_id", "=", userId)
    .where("field_id", "=", fieldId)
    .executeTakeFirst();
}

export async function upsertProfileValue(db: Queryable, realmId: number, row: ProfileValueRow, exists: boolean): Promise<void> {
  if (exists) {
    await db
      .updateTable("custom_profile_field_values")
      .set({ value: row.value, rendered_value: row.rendered_value })
      .where("user_id", "=", row.user_id)
      .where("field_id", "=", row.field_id)
      .execute();
  } else {
    await db.insertInto("custom_profile_field_values").values({ realm_id: realmId, ...row }).execute();
  }
}

export async function deleteProfileValue(db: Queryable, userId: number, fieldId: number): Promise<number> {
  const res = await db
    .deleteFrom("custom_profile_field_values")
    .where("user_id", "=", userId)
    .where("field_id", "=", fieldId)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
