/**
 * An unread floor is learned only from a read that nothing can have outdated
 * (src/caches/unread-floors.ts): no commit of this process since the read, no flush, and
 * no write to the user's rows still uncommitted when the read ran.
 */
import { describe, expect, it } from "vitest";
import { UnreadFloorCache } from "../../src/caches/unread-floors.js";
import type { DirectReader } from "../../src/db/direct-reads.js";

/** A reader whose commit count the test moves (the writer's COMMITs). */
function fakeReader(): DirectReader & { commits: number } {
  return {
    commits: 0,
    commitCount() {
      return this.commits;
    },
    statement: () => undefined,
    rows: () => [],
  };
}

function enabled(): { floors: UnreadFloorCache; reader: ReturnType<typeof fakeReader> } {
  const floors = new UnreadFloorCache();
  const reader = fakeReader();
  floors.enable(reader);
  return { floors, reader };
}

describe("UnreadFloorCache", () => {
  it("learns from a read with nothing in between, and starts the next read there", () => {
    const { floors } = enabled();
    const read = floors.begin(7);
    expect(read.floor).toBe(0);
    floors.learn(read, 120);
    expect(floors.begin(7).floor).toBe(120);
  });

  it("does not learn across a commit or a flush", () => {
    const { floors, reader } = enabled();
    const read = floors.begin(7);
    reader.commits++;
    floors.learn(read, 120);
    expect(floors.floorOf(7)).toBeUndefined();

    const again = floors.begin(7);
    floors.flushAll();
    floors.learn(again, 120);
    expect(floors.floorOf(7)).toBeUndefined();
  });

  it("does not learn from a read that ran while a write to the user's rows was uncommitted", () => {
    const { floors, reader } = enabled();
    floors.learn(floors.begin(7), 120);
    // A transaction marks a message of user 7 unread; a read runs before its COMMIT.
    floors.lowered([7]);
    expect(floors.floorOf(7)).toBeUndefined();
    floors.learn(floors.begin(7), 150);
    expect(floors.floorOf(7)).toBeUndefined();
    // Another user's floor is not affected.
    floors.learn(floors.begin(8), 90);
    expect(floors.floorOf(8)).toBe(90);

    // After the COMMIT, a read sees the write: it may set the floor again.
    reader.commits++;
    floors.learn(floors.begin(7), 60);
    expect(floors.floorOf(7)).toBe(60);
  });

  it("never lowers a floor by learning (a lower floor comes only from a drop)", () => {
    const { floors } = enabled();
    floors.learn(floors.begin(7), 120);
    floors.learn(floors.begin(7), 100);
    expect(floors.floorOf(7)).toBe(120);
  });

  it("does nothing without a direct reader (PostgreSQL): every read starts at 0", () => {
    const floors = new UnreadFloorCache();
    const read = floors.begin(7);
    floors.learn(read, 120);
    expect(floors.begin(7).floor).toBe(0);
  });
});
