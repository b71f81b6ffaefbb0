/**
 * Authorization matrix, share 2 of 2: the rows of authz-table.ts (every endpoint × object)
 * tried as owner, administrator, moderator, member, guest, bot, deactivated user, another
 * organization's owner and no credentials. Refusals change nothing in the database.
 */
import { authzSuite, share } from "../support/authz-suite.js";
import { authzRows } from "./authz-table.js";

authzSuite("authorization matrix (2/2)", share(authzRows(), 1, 2), { wrongHost: true });
