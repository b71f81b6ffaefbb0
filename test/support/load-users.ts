/** Grows a test organization by `n` members (query-count tests measure at two sizes). */
import { doCreateUser } from "../../src/actions/users-create.js";
import type { User } from "../../src/db/schema.js";
import { Role } from "../../src/lib/roles.js";
import type { TestServer } from "./server.js";

/** The members made, in order. */
export async function addMembers(s: TestServer, n: number, prefix: string): Promise<User[]> {
  const made: User[] = [];
  for (let i = 0; i < n; i++) {
    made.push(await doCreateUser(s.ctx, s.realm.realm, { email: `${prefix}${i}@example.com`, fullName: `Load ${prefix}${i}`, password: null, role: Role.MEMBER }));
  }
  return made;
}
