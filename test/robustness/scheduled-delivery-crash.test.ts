/**
 * Exactly-once delivery across a crash: 1,000 scheduled messages and reminders come due
 * while a real server process delivers them; it is killed with SIGKILL mid-delivery,
 * restarted, and every one is delivered exactly once (one message each, its id recorded).
 * Runs on SQLite (a file database) or on PostgreSQL when TEST_DATABASE_URL is set.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { migrateToLatest, openDb } from "../../src/db/connect.js";
import type { Db } from "../../src/db/tx.js";
import { contextFor } from "../../src/server.js";
import { doCreateChannel } from "../../src/actions/subscriptions.js";
import { doSendMessage } from "../../src/actions/messages.js";
import { ensureNotificationBot } from "../../src/actions/internal-messages.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { seedRealm, type SeededRealm } from "../support/realm.js";
import { buildServer, freePort, startServerProcess, type ServerBuild } from "../support/server-process.js";

const SCHEDULED = 500;
const REMINDERS = 500;
const TOTAL = SCHEDULED + REMINDERS;

let db: Db;
let testDb: TestDb | undefined;
let dataDir: string;
let build: ServerBuild;
let realm: SeededRealm;
let env: Record<string, string>;

beforeAll(async () => {
  build = await buildServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-crash-"));
  if (process.env.TEST_DATABASE_URL) {
    testDb = await createTestDb();
    db = testDb.db;
  } else {
    db = openDb({ sqlitePath: path.join(dataDir, "parley.sqlite3") });
    await migrateToLatest(db);
  }
  const port = await freePort();
  env = { PORT: String(port), PARLEY_DATA_DIR: dataDir, ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}) };
  const ctx = contextFor({ ...loadConfig({}), port, externalHost: `localhost:${port}` }, db);
  realm = await seedRealm(ctx, "", "Crash Test");
  await ensureNotificationBot(ctx, realm.realm);
  const channel = await doCreateChannel(ctx, realm.realm, realm.owner, {
    name: "crash",
    description: "",
    inviteOnly: false,
    isWebPublic: false,
    subscribers: [realm.member, realm.other],
  });
  const target = await doSendMessage(ctx, realm.realm, realm.other, {
    target: { kind: "channel", channel: { id: channel.id }, topic: "t" },
    content: "remember this",
    clientName: "test",
  });
  // Half already due when the server starts, half coming due over its first seconds.
  const now = Math.floor(Date.now() / 1000);
  const due = (i: number) => now - 5 + (i % 2 === 0 ? 0 : 1 + (i % 4));
  const rows = [];
  for (let i = 0; i < SCHEDULED; i++) {
    const toChannel = i % 2 === 0;
    rows.push({
      realm_id: realm.realm.id,
      sender_id: realm.member.id,
      delivery_type: 1,
      type: toChannel ? "stream" : "private",
      channel_id: toChannel ? channel.id : null,
      to_json: toChannel ? "[]" : JSON.stringify([realm.other.id]),
      topic: toChannel ? "crash" : "",
      content: `scheduled-${i}`,
      rendered_content: `<p>scheduled-${i}</p>`,
      scheduled_timestamp: due(i) + 8,
      read_by_sender: 1,
      reminder_target_message_id: null,
      reminder_note: null,
    });
  }
  for (let i = 0; i < REMINDERS; i++) {
    rows.push({
      realm_id: realm.realm.id,
      sender_id: realm.member.id,
      delivery_type: 2,
      type: "private",
      channel_id: null,
      to_json: JSON.stringify([realm.member.id]),
      topic: "",
      content: `stored reminder-${i}`,
      rendered_content: "<p>stored</p>",
      scheduled_timestamp: due(i) + 8,
      read_by_sender: 0,
      reminder_target_message_id: target,
      reminder_note: `reminder-${i}`,
    });
  }
  for (let i = 0; i < rows.length; i += 200) await db.insertInto("scheduled_messages").values(rows.slice(i, i + 200)).execute();
}, 60_000);

afterAll(async () => {
  if (testDb) await testDb.drop();
  else await db?.destroy();
  build?.remove();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function settledCount(): Promise<number> {
  const r = await db
    .selectFrom("scheduled_messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where((eb) => eb.or([eb("delivered", "=", 1), eb("failed", "=", 1)]))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, output: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${await settledCount()} of ${TOTAL} settled)\n${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("scheduled delivery survives SIGKILL", () => {
  it("delivers each of 1,000 scheduled messages and reminders exactly once across a kill -9 and a restart", async () => {
    const first = startServerProcess(build.cli, env);
    // Kill it mid-delivery: some delivered, most not.
    await waitFor(async () => (await settledCount()) >= TOTAL / 10, 40_000, "the first deliveries", first.output);
    first.child.kill("SIGKILL");
    await first.exited;
    const atKill = await settledCount();
    expect(atKill, "killed mid-delivery").toBeLessThan(TOTAL);

    const second = startServerProcess(build.cli, env);
    try {
      await waitFor(async () => (await settledCount()) === TOTAL, 90_000, "every delivery after the restart", second.output);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }

    const rows = await db.selectFrom("scheduled_messages").selectAll().orderBy("id").execute();
    expect(rows.filter((r) => r.failed === 1).map((r) => r.failure_message)).toEqual([]);
    expect(rows.every((r) => r.delivered === 1 && r.delivered_message_id !== null)).toBe(true);
    expect(new Set(rows.map((r) => r.delivered_message_id)).size).toBe(TOTAL);

    // Exactly one message per row, and it is the one recorded.
    const messages = await db.selectFrom("messages").select(["id", "sender_id", "content"]).where("realm_id", "=", realm.realm.id).execute();
    const byId = new Map(messages.map((m) => [m.id, m]));
    for (const r of rows) {
      const sent = byId.get(r.delivered_message_id!);
      if (r.delivery_type === 1) expect(sent?.content).toBe(r.content);
      else expect(sent?.content).toContain(`Note:\n > ${r.reminder_note}\n`);
    }
    const scheduledCopies = messages.filter((m) => m.content.startsWith("scheduled-"));
    expect(scheduledCopies).toHaveLength(SCHEDULED);
    expect(new Set(scheduledCopies.map((m) => m.content)).size).toBe(SCHEDULED);
    const reminderCopies = messages.filter((m) => m.sender_id === realm.realm.notification_bot_id || m.content.startsWith("You requested a reminder"));
    expect(reminderCopies).toHaveLength(REMINDERS);
    expect(new Set(reminderCopies.map((m) => /> (reminder-\d+)\n/.exec(m.content)?.[1])).size).toBe(REMINDERS);
  }, 180_000);
});
