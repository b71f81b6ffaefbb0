/**
 * One server per SQLite database: the server holds {dataDir}/parley.lock, created
 * exclusively with its pid inside, and removes it on exit. A lock left by a process that
 * no longer runs (a crash, kill -9) is stale and taken over.
 */
import fs from "node:fs";
import path from "node:path";

export class ServerLockedError extends Error {}

export interface ServerLock {
  file: string;
  release(): void;
}

export function lockFilePath(dataDir: string): string {
  return path.join(dataDir, "parley.lock");
}

export function acquireServerLock(dataDir: string): ServerLock {
  const file = lockFilePath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o644 });
      return { file, release: () => releaseIfOurs(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = readPid(file);
    if (holder !== undefined && holder !== process.pid && isRunning(holder)) {
      throw new ServerLockedError(
        `Another server (pid ${holder}) is using the database in ${path.resolve(dataDir)}; stop it first, or give this one another PARLEY_DATA_DIR (lock file ${path.resolve(file)}).`,
      );
    }
    // Stale: its process is gone. Remove it and try once more (another starter may win the race).
    fs.rmSync(file, { force: true });
  }
  throw new ServerLockedError(`Could not take the lock file ${path.resolve(file)}: another server is starting on the same data folder.`);
}

function readPid(file: string): number | undefined {
  try {
    const n = Number(fs.readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function releaseIfOurs(file: string): void {
  if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
}
