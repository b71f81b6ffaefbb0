/**
 * The message writer's thread (message-writer.ts): stores batches of messages on a
 * connection of its own, in one transaction with one durable COMMIT per batch.
 */
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import SQLite from "better-sqlite3";
import type { MessageBatch, MessageBatchResult, MessageWriterStart, NewMessageRow } from "./message-writer-protocol.js";
import { readCommitCounter } from "./wal-commits.js";
import type { OwnCommit } from "./wal-commits.js";

const { file, statements: sql } = workerData as MessageWriterStart;
const database = new SQLite(file);
// As the group's writer (connect.ts): a COMMIT is on disk before any send is answered.
database.pragma("synchronous = FULL");
database.pragma("foreign_keys = ON");
database.pragma("busy_timeout = 5000");
database.pragma("temp_store = MEMORY");
const shm = fs.openSync(`${file}-shm`, "r");

const insertMessage = database.prepare(sql.insertMessage);
const insertUserMessages = database.prepare(sql.insertUserMessages);

let statements = 0;
let commits: OwnCommit[] = [];

function store(row: NewMessageRow, recipients: string): Record<string, unknown> {
  const message = insertMessage.get(sql.messageFields.map((field) => row[field])) as Record<string, unknown>;
  insertUserMessages.run(row.realm_id, message.id, recipients);
  statements += 2;
  return message;
}

function inTransaction<T>(fn: () => T): T {
  database.exec("begin immediate");
  statements++;
  try {
    const result = fn();
    // Under the write lock: nobody else commits between this read and the COMMIT. The
    // transaction inserted messages, so its COMMIT adds one commit to the WAL.
    const before = readCommitCounter(shm);
    database.exec("commit");
    statements++;
    commits.push({ before, after: readCommitCounter(shm), changedPage: true });
    return result;
  } catch (err) {
    if (database.inTransaction) database.exec("rollback");
    throw err;
  }
}

function writeBatch(batch: MessageBatch): MessageBatchResult {
  statements = 0;
  commits = [];
  try {
    const rows = inTransaction(() => batch.items.map((item) => store(item.row, item.recipients)));
    return { messages: rows.map((row) => ({ row })), commits, statements };
  } catch {
    // Some message failed (or the COMMIT did): each runs alone now, so only the failing ones fail.
    const messages = batch.items.map((item) => {
      try {
        return { row: inTransaction(() => store(item.row, item.recipients)) };
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
    });
    return { messages, commits, statements };
  }
}

parentPort!.on("message", (batch: MessageBatch) => {
  parentPort!.postMessage(writeBatch(batch));
});
