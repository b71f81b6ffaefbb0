/** The ordered list of migrations; append new ones, never reorder or edit applied ones. */
import type { Migration, MigrationProvider } from "kysely";
import * as m0001 from "./0001-initial.js";
import * as m0002 from "./0002-notification-bot.js";
import * as m0006 from "./0006-user-groups.js";
import * as m0007 from "./0007-invites-push.js";
import * as m0010 from "./0010-login-lockout-clears.js";
import * as m0011 from "./0011-attachments.js";
import * as m0012 from "./0012-custom-emoji-upload.js";
import * as m0013 from "./0013-stored-files.js";
import * as m0014 from "./0014-channel-name-lookup.js";
import * as m0015 from "./0015-sessions.js";
import * as m0016 from "./0016-direct-message-index.js";
import * as m0017 from "./0017-user-messages-clustered.js";
import * as m0018 from "./0018-scheduled-by-sender.js";
import * as m0019 from "./0019-commit-marker.js";

const migrations: Record<string, Migration> = {
  "0001-initial": m0001,
  "0002-notification-bot": m0002,
  "0006-user-groups": m0006,
  "0007-invites-push": m0007,
  "0010-login-lockout-clears": m0010,
  "0011-attachments": m0011,
  "0012-custom-emoji-upload": m0012,
  "0013-stored-files": m0013,
  "0014-channel-name-lookup": m0014,
  "0015-sessions": m0015,
  "0016-direct-message-index": m0016,
  "0017-user-messages-clustered": m0017,
  "0018-scheduled-by-sender": m0018,
  "0019-commit-marker": m0019,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
