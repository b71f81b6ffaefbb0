/**
 * What the contract check saw, per test file: documented operations (with statuses),
 * event types, and what the file does not document. Kept in a folder under the temp
 * directory (one JSON file per test file, rewritten as it grows) for the coverage report.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { OperationRef } from "./operations.js";

export interface CoverageRecord {
  testFile: string;
  operations: string[];
  events: string[];
  undocumented: string[];
}

/** One folder per checkout, so worktrees never mix their records. */
export const COVERAGE_DIR = path.join(os.tmpdir(), `parley-contract-${crypto.createHash("sha256").update(process.cwd()).digest("hex").slice(0, 12)}`);

const records = new Map<string, { operations: Set<string>; events: Set<string>; undocumented: Set<string> }>();

function currentTestFile(): string {
  try {
    return path.relative(process.cwd(), expect.getState().testPath ?? "unknown");
  } catch {
    return "unknown";
  }
}

function add(kind: "operations" | "events" | "undocumented", item: string): void {
  const file = currentTestFile();
  let rec = records.get(file);
  if (!rec) records.set(file, (rec = { operations: new Set(), events: new Set(), undocumented: new Set() }));
  if (rec[kind].has(item)) return;
  rec[kind].add(item);
  const out: CoverageRecord = { testFile: file, operations: [...rec.operations], events: [...rec.events], undocumented: [...rec.undocumented] };
  fs.mkdirSync(COVERAGE_DIR, { recursive: true });
  fs.writeFileSync(path.join(COVERAGE_DIR, `${file.replace(/[^A-Za-z0-9.-]/g, "_")}.json`), JSON.stringify(out));
}

export const recordOperation = (op: OperationRef, status: number) => add("operations", `${op.method} ${op.template} ${status}`);
export const recordEvent = (key: string) => add("events", key);
export const recordUndocumented = (what: string) => add("undocumented", what);
