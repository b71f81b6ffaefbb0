/**
 * The server main thread's CPU per answered request during a load: a figure that moves far
 * less with the shared machine's load than req/s does (the send rows' req/s moved 2.5× between
 * runs a minute apart), so old and new code compare on it.
 */
import type { LoadResult } from "./load.js";
import { mainThreadCpuMs } from "./processes.js";
import type { RowResult } from "./row.js";

/**
 * Runs `load` and adds `serverCpuUsPerRequest` (µs) to its figures and note; `load` calls
 * `measuring` when its counted requests begin (runLoad: after its warm-up).
 */
export async function withServerCpu(pid: number, load: (measuring: () => void) => Promise<LoadResult>): Promise<RowResult> {
  let before = mainThreadCpuMs(pid);
  const result = await load(() => (before = mainThreadCpuMs(pid)));
  const cpuMs = mainThreadCpuMs(pid) - before;
  const perRequestUs = result.requests > 0 ? Math.round((cpuMs * 1000) / result.requests) : 0;
  const note = `server main thread's CPU per request ${perRequestUs} µs`;
  return { ...result, figures: { serverCpuUsPerRequest: perRequestUs }, note: result.note ? `${result.note}; ${note}` : note };
}
