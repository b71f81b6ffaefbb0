/**
 * Messages stored on a thread of their own (SQLite on a file).
 *
 * A send's rows and its durable COMMIT were half of the main thread's CPU per send (a cpu
 * profile of the bench's send row): B-tree inserts for the message and its 50 per-user rows,
 * then the COMMIT writing some 90 WAL frames and waiting for fdatasync. The main thread checks,
 * renders and answers; this writer hands the rows to a worker thread, which stores the sends of
 * a turn as one batch: one transaction, one COMMIT. Meanwhile the main thread goes on with the
 * next requests, so the two cores share the work.
 *
 * SQLite allows one writer at a time. While a batch is on the thread, this writer holds the
 * commit group's writer (group-commit.ts): the group's own transactions wait for it as for each
 * other, the group's open transaction commits before the batch begins, and the main thread
 * never waits on SQLite's lock. A batch whose COMMIT fails, or with a message that fails,
 * runs again message by message, so only the failing ones fail. A message resolves after the
 * COMMIT that made it durable; the read connection's snapshot ends then, so what a sender
 * reads next includes it.
 *
 * The thread starts at the first message (a CLI command that stores none starts none).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { turnEnd } from "../lib/turn-end.js";
import type { CommitGroup } from "./group-commit.js";
import type { MessageBatch, MessageBatchResult, MessageWriterStart, MessageWriterStatements, NewMessageRow } from "./message-writer-protocol.js";
import type { Message } from "./schema.js";
import { refuseNul } from "./nul-guard.js";
import { packedPairs } from "./dialect.js";

interface Pending {
  row: NewMessageRow;
  recipients: string;
  resolve: (row: Message) => void;
  reject: (err: unknown) => void;
}

export class MessageWriter {
  private worker: Worker | undefined;
  private pending: Pending[] = [];
  /** The batch on the thread (or being handed to it). */
  private inFlight: Pending[] | undefined;
  private flushScheduled = false;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(
    private readonly file: string,
    private readonly group: CommitGroup,
    /** The thread's SQL, asked for when it starts (compiled from the main thread's query builders). */
    private readonly statements: () => MessageWriterStatements,
    /** Called with the number of SQL statements each batch ran (tests count them). */
    private readonly onStatements: (count: number) => void = () => undefined,
  ) {}

  /**
   * Stores a message row and its per-user rows ([user id, flags bits]); resolves with the
   * stored row after the COMMIT.
   */
  write(row: NewMessageRow, recipients: ReadonlyArray<readonly [number, number]>): Promise<Message> {
    return new Promise((resolve, reject) => {
      if (this.closed) throw new Error("The message writer is closed");
      refuseNul(Object.values(row));
      this.pending.push({ row, recipients: packedPairs(recipients), resolve, reject });
      this.scheduleFlush();
    });
  }

  /** Waits for the messages already written, then stops the thread. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.inFlight || this.pending.length > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.worker?.terminate();
    this.worker = undefined;
  }

  /** The sends of a turn go as one batch: at the turn's end, or once the batch on the thread is back. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.inFlight) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight || this.pending.length === 0) return;
    this.inFlight = [];
    await this.group.acquire();
    const items = this.pending;
    this.pending = [];
    this.inFlight = items;
    try {
      this.group.lendToWriterThread();
      const batch: MessageBatch = { items: items.map(({ row, recipients }) => ({ row, recipients })) };
      const worker = this.startedWorker();
      worker.ref(); // a batch on the thread keeps the process alive, an idle thread does not
      worker.postMessage(batch);
    } catch (err) {
      this.finish([], () => items.forEach((item) => item.reject(err)));
    }
  }

  private startedWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = threadWorker({ file: this.file, statements: this.statements() });
    worker.on("message", (result: MessageBatchResult) => this.settle(result));
    // The thread died (it could not open the database, or crashed): the batch fails, the next starts a new thread.
    worker.on("error", (err) => this.lost(err));
    worker.on("exit", (code) => this.lost(new Error(`The message writer's thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(result: MessageBatchResult): void {
    const items = this.inFlight ?? [];
    this.onStatements(result.statements);
    this.finish(result.commits, () =>
      result.messages.forEach((m, i) => (m.error === undefined ? items[i].resolve(m.row as unknown as Message) : items[i].reject(new Error(`Storing the message failed: ${m.error}`)))),
    );
  }

  private lost(err: unknown): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    const items = this.inFlight;
    if (!items || items.length === 0) return;
    // What the thread committed before it died is unknown: count it as another process's.
    this.finish([{ before: undefined, after: undefined, changedPage: true }], () => items.forEach((item) => item.reject(err)));
  }

  /** The batch is back: the group gets its writer again, then the senders hear. */
  private finish(commits: MessageBatchResult["commits"], answer: () => void): void {
    this.inFlight = undefined;
    this.worker?.unref();
    try {
      this.group.writerThreadReturned(commits);
    } finally {
      this.group.release();
    }
    // The senders' answers leave at this turn's end, ahead of the work their events schedule
    // (waiting polls answered in slices, one an immediate), as the group commit's do.
    void turnEnd();
    answer();
    if (this.pending.length > 0) void this.flush();
    else if (this.drained) this.drained();
  }
}

/**
 * The thread runs the compiled module next to this one (dist/). Running from the TypeScript
 * sources (the test suite), there is none: the module is compiled now, with esbuild (a
 * development dependency, absent from a production install, which never gets here).
 */
function threadWorker(workerData: MessageWriterStart): Worker {
  const compiled = new URL("./message-writer-thread.js", import.meta.url);
  if (fs.existsSync(compiled)) return new Worker(compiled, { workerData });
  const require = createRequire(import.meta.url);
  const esbuild = require("esbuild") as typeof import("esbuild");
  const { outputFiles } = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL("./message-writer-thread.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "cjs",
    external: ["better-sqlite3"],
    write: false,
  });
  return new Worker(outputFiles[0].text, { eval: true, workerData });
}
