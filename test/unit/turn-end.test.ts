/**
 * The end of a turn's batch (src/lib/turn-end.ts): answers ready during one poll phase wait
 * for its end and leave together; an expensive request's fair turn lets them go first; a
 * write's answer, resumed by its group's COMMIT, leaves in the same check phase as that
 * COMMIT instead of a whole poll later.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connect.js";
import { withTransaction } from "../../src/db/tx.js";
import { fairTurn } from "../../src/http/fair-turns.js";
import { endTurnNow, MAX_HOLD_MS, turnEnd } from "../../src/lib/turn-end.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-turn-end-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Settles with "next turn" when an immediate scheduled now runs: one poll phase later if called in a check phase. */
const nextImmediate = () => new Promise<string>((resolve) => setImmediate(() => resolve("next turn")));

describe("the end of a turn's batch", () => {
  it("holds every answer ready in a turn until that turn's work is done, then lets all go at once", async () => {
    const log: string[] = [];
    const request = (name: string) => {
      log.push(`${name} done`);
      return turnEnd().then(() => void log.push(`${name} answered`));
    };
    const answered = Promise.all([request("a"), request("b"), request("c")]);
    // Three requests of one poll phase: their answers share one end of turn.
    expect(turnEnd()).toBe(turnEnd());
    await answered;
    expect(log).toEqual(["a done", "b done", "c done", "a answered", "b answered", "c answered"]);
  });

  it("ends at the check phase right after the poll, and a new batch begins after it", async () => {
    const first = turnEnd();
    await first;
    const second = turnEnd();
    expect(second).not.toBe(first);
    await second;
  });

  it("lets the answers ready go before an expensive request's fair turn", async () => {
    const log: string[] = [];
    const expensive = fairTurn().then(() => void log.push("expensive request runs"));
    const cheap = turnEnd().then(() => void log.push("cheap answer leaves"));
    await Promise.all([expensive, cheap]);
    expect(log).toEqual(["cheap answer leaves", "expensive request runs"]);
  });

  it("ends now when asked (nothing waits otherwise)", async () => {
    let answered = false;
    const waiting = turnEnd().then(() => (answered = true));
    endTurnNow();
    await Promise.resolve();
    expect(answered).toBe(true);
    await waiting;
    endTurnNow();
  });

  it("a write's answer leaves in the same check phase as its COMMIT, not a poll later", async () => {
    const db = openDb({ sqlitePath: path.join(dir, "commit.sqlite3") });
    await sql`create table t (v integer not null)`.execute(db);
    for (let round = 0; round < 5; round++) {
      await withTransaction(db, (tx) => sql`insert into t (v) values (${round})`.execute(tx));
      // Resumed by the COMMIT's immediate: the end of turn the group asked for follows it.
      const later = nextImmediate();
      expect(await Promise.race([turnEnd().then(() => "this turn"), later])).toBe("this turn");
      await later;
    }
    await db.destroy();
  });
});

describe("the end of a turn's batch, in a long poll phase", () => {
  it("lets a batch older than MAX_HOLD_MS go when the next answer asks, which starts a new batch", async () => {
    const log: string[] = [];
    const first = turnEnd().then(() => void log.push("first answered"));
    const busyUntil = performance.now() + MAX_HOLD_MS + 1;
    while (performance.now() < busyUntil);
    const second = turnEnd().then(() => void log.push("second answered"));
    // The first batch is let go at once; the second waits for the turn's end.
    await Promise.resolve();
    expect(log).toEqual(["first answered"]);
    await Promise.all([first, second]);
    expect(log).toEqual(["first answered", "second answered"]);
  });
});
