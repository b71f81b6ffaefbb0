/** `parley outbox`: options checked here, the listing done by src/cli-outbox.ts. */
import { outboxCommand } from "../cli-outbox.js";
import type { Command } from "./command.js";

export const outbox: Command = {
  name: "outbox",
  summary: "List the mail kept in PARLEY_DATA_DIR/outbox (no SMTP configured), or print one message",
  synopsis: "[--json] [FILE]",
  options: { json: { type: "boolean", default: false } },
  positionals: [0, 1],
  usesDatabase: false,
  async run(config, values, positionals) {
    return outboxCommand(config, [...(values.json ? ["--json"] : []), ...positionals]);
  },
};
