/** Grows a test organization by `n` members (query-count tests measure at two sizes). */
import { doCreateUser } from "../../src/actions/users-create.js";
import { Role } from "../../src/lib/roles.js";
import type { TestServer } from "./server.js";

export async function addMembers(s: TestServer, n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    await doCreateUser(s.ctx, s.realm.realm, { email: `${prefix}${i}@example.com`, fullName: `Load ${prefix}${i}`, password: null, role: Role.MEMBER });
  }
}
