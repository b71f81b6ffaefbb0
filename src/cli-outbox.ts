/** `parley outbox [--json] [FILE]`: lists the mail kept in {PARLEY_DATA_DIR}/outbox, or prints one message. */
import { parseArgs } from "node:util";
import type { Config } from "./config.js";
import { listOutbox, outboxDir, readOutboxMessage } from "./mail/outbox.js";

export async function outboxCommand(config: Config, args: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: "boolean", default: false } }, allowPositionals: true });
  if (positionals.length > 1) {
    process.stderr.write("parley: outbox takes at most one file name\n");
    return 2;
  }
  if (positionals.length === 1) {
    try {
      out(await readOutboxMessage(config.dataDir, positionals[0]!));
      return 0;
    } catch (err) {
      process.stderr.write(`parley: ${(err as Error).message}\n`);
      return 1;
    }
  }
  const entries = await listOutbox(config.dataDir);
  if (values.json) {
    out(`${JSON.stringify(entries)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    out(`The outbox (${outboxDir(config.dataDir)}) is empty.\n`);
    return 0;
  }
  for (const e of entries) out(`${e.file}\t${e.date}\t${e.to}\t${e.subject}\n`);
  return 0;
}
