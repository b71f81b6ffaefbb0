/**
 * User groups: one name per realm (upstream's unique realm + name; anonymous groups have
 * a NULL name, which both engines let repeat), and an index for walking subgroup edges
 * upwards (the recursive queries that find the groups containing a user).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("user_groups_realm_name_unique").on("user_groups").columns(["realm_id", "name"]).unique().execute();
  await db.schema.createIndex("ugs_subgroup").on("user_group_subgroups").column("subgroup_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("ugs_subgroup").execute();
  await db.schema.dropIndex("user_groups_realm_name_unique").execute();
}
