/** Every `parley` command, in the order `parley --help` lists them. */
import type { Command } from "./command.js";
import { changeRole } from "./change-role.js";
import { clearLockout } from "./clear-lockout.js";
import { createRealm } from "./create-realm.js";
import { createUser } from "./create-user.js";
import { exportRealm } from "./export-realm.js";
import { importRealm } from "./import-realm.js";
import { listRealms } from "./list-realms.js";
import { listUsers } from "./list-users.js";
import { migrate } from "./migrate.js";
import { outbox } from "./outbox.js";
import { resetPassword } from "./reset-password.js";
import { serve } from "./serve.js";
import { deactivateUser, reactivateUser } from "./user-activation.js";

export const COMMANDS: readonly Command[] = [
  serve,
  migrate,
  createRealm,
  createUser,
  listRealms,
  listUsers,
  changeRole,
  deactivateUser,
  reactivateUser,
  resetPassword,
  clearLockout,
  outbox,
  exportRealm,
  importRealm,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
