/** The run's outcome: one markdown table with the machine it ran on, and the JSON file. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GOALS } from "./goals.js";
import type { LoadResult } from "./load.js";
import { rowKey, sizeLabel, type Row, type RowResult } from "./row.js";

export interface RowOutcome extends RowResult {
  key: string;
  name: string;
  users: number;
  baseline?: LoadResult;
  ratio?: number;
  goal?: string;
  met?: boolean;
  error?: string;
}

export interface Machine {
  cores: number;
  cpu: string;
  ramGb: number;
  node: string;
  engine: string;
}

export function machine(engine: string): Machine {
  return { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown", ramGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, engine };
}

/** Ratio to the row's own baseline and its goal, judged against the whole run's results. */
export function outcomeOf(row: Row, result: RowResult | Error, baseline: LoadResult | undefined, all: ReadonlyMap<string, RowResult>): RowOutcome {
  const key = rowKey(row);
  const goal = GOALS[key];
  const base = { key, name: row.name, users: row.users, baseline, goal: goal?.text };
  if (result instanceof Error) return { ...base, met: goal ? false : undefined, error: result.message };
  const ratio = baseline && result.requestsPerSecond !== undefined ? Math.round((result.requestsPerSecond / baseline.requestsPerSecond) * 1000) / 1000 : undefined;
  const met = goal ? goal.met(result, ratio, all) && !result.failures : undefined;
  return { ...base, ...result, ratio, met };
}

export function markdownReport(rows: RowOutcome[], m: Machine, settings: { seconds: number; connections: number }): string {
  const num = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? "" : n.toFixed(digits));
  const lines = [
    `Machine: ${m.cores} cores, ${m.cpu}, ${m.ramGb} GB RAM, Node ${m.node}, ${m.engine}; ${settings.connections} connections, ${settings.seconds} s per measurement.`,
    "",
    "| scenario | users | req/s | p50 ms | p99 ms | ratio (bare req/s) | goal | met |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
  ];
  for (const r of rows) {
    const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)} (${Math.round(r.baseline!.requestsPerSecond)})`;
    const met = r.error ? "error" : r.met === undefined ? "" : (r.met ? "yes" : "no") + (r.failures ? ` (${r.failures} failed)` : "");
    const mark = r.note || r.error ? " †" : "";
    lines.push(`| ${r.name}${mark} | ${sizeLabel(r.users)} | ${num(r.requestsPerSecond, r.requestsPerSecond !== undefined && r.requestsPerSecond < 10 ? 1 : 0)} | ${num(r.p50, 2)} | ${num(r.p99, 2)} | ${ratio} | ${r.goal ?? "—"} | ${met} |`);
  }
  const notes = rows.filter((r) => r.note || r.error);
  if (notes.length > 0) lines.push("", ...notes.map((r) => `† ${r.key}: ${r.error ? `error: ${r.error}` : r.note}`));
  return lines.join("\n");
}

export function writeJson(file: string, content: object): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
}
