/** Seeds a benchmark organization: an owner, N members, and a 50-member channel when channels exist. */
import type { AppContext } from "../src/context.js";
import { doCreateRealm } from "../src/actions/realms.js";
import { generateApiKey } from "../src/lib/secrets.js";
import { Role } from "../src/lib/roles.js";
import { systemGroupIds } from "../src/db/queries/user-groups.js";
import { directSystemGroupsForRole } from "../src/lib/system-groups.js";

export interface BenchSeed {
  realmId: number;
  owner: { id: number; email: string; apiKey: string };
  members: Array<{ id: number; email: string; apiKey: string }>;
}

/** Inserts users in bulk (one statement per 500 users): the benchmark measures reads, not sign-up. */
export async function seedBenchRealm(ctx: AppContext, memberCount: number): Promise<BenchSeed> {
  const { realm, owner } = await doCreateRealm(ctx, {
    name: "Bench Organization",
    subdomain: "",
    ownerEmail: "owner@bench.example.com",
    ownerName: "Bench Owner",
    ownerPassword: null,
  });
  const groups = await systemGroupIds(ctx.db, realm.id);
  const memberGroups = directSystemGroupsForRole(Role.MEMBER);
  const now = Math.floor(Date.now() / 1000);
  const members: BenchSeed["members"] = [];
  for (let start = 0; start < memberCount; start += 500) {
    const batch = Array.from({ length: Math.min(500, memberCount - start) }, (_, i) => ({
      realm_id: realm.id,
      delivery_email: `user${start + i}@bench.example.com`,
      full_name: `Bench User ${start + i}`,
      role: Role.MEMBER,
      api_key: generateApiKey(),
      date_joined: now,
    }));
    const rows = await ctx.db.insertInto("users").values(batch).returning(["id", "delivery_email", "api_key"]).execute();
    await ctx.db
      .insertInto("user_group_members")
      .values(rows.flatMap((r) => memberGroups.map((g) => ({ realm_id: realm.id, group_id: groups.get(g)!, user_id: r.id }))))
      .execute();
    members.push(...rows.map((r) => ({ id: r.id, email: r.delivery_email, apiKey: r.api_key })));
  }
  return { realmId: realm.id, owner: { id: owner.id, email: owner.delivery_email, apiKey: owner.api_key }, members };
}
