/**
 * The outbox: mail the server could not hand to an SMTP server, one RFC 5322 message per
 * .eml file under {dataDir}/outbox, named so that a plain sort lists them oldest first.
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

export function outboxDir(dataDir: string): string {
  return join(dataDir, "outbox");
}

export async function writeToOutbox(dataDir: string, raw: Buffer): Promise<string> {
  const dir = outboxDir(dataDir);
  await mkdir(dir, { recursive: true });
  const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`;
  // Write then rename, so a reader never sees half a message.
  const tmp = join(dir, `.${name}.tmp`);
  await writeFile(tmp, raw, { mode: 0o600 });
  await rename(tmp, join(dir, name));
  return join(dir, name);
}

export interface OutboxEntry {
  file: string;
  to: string;
  subject: string;
  date: string;
}

function header(raw: string, name: string): string {
  // Headers end at the first blank line; folded lines continue with whitespace.
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : "";
}

/** The outbox's messages, oldest first. */
export async function listOutbox(dataDir: string): Promise<OutboxEntry[]> {
  let files: string[];
  try {
    files = (await readdir(outboxDir(dataDir))).filter((f) => f.endsWith(".eml") && !f.startsWith(".")).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const out: OutboxEntry[] = [];
  for (const file of files) {
    const raw = await readFile(join(outboxDir(dataDir), file), "utf8");
    out.push({ file, to: header(raw, "To"), subject: header(raw, "Subject"), date: header(raw, "Date") });
  }
  return out;
}

/** One message's full text, by file name (no paths: only names listed by listOutbox). */
export async function readOutboxMessage(dataDir: string, file: string): Promise<string> {
  if (file.includes("/") || file.includes("\\") || !file.endsWith(".eml")) throw new Error(`Not an outbox message: ${file}`);
  return readFile(join(outboxDir(dataDir), file), "utf8");
}
