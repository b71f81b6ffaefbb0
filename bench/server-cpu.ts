/**
 * A load measurement with the server's CPU per request beside it: the main thread's CPU
 * time (processes.ts) over the measurement divided by the responses. On the shared
 * machine a row's wall-clock figures move with whatever else runs; this one hardly does.
 */
import type { LoadResult } from "./load.js";
import { mainThreadCpuMs } from "./processes.js";
import type { PhaseEnv, RowResult } from "./row.js";

export async function withServerCpu(env: PhaseEnv, load: () => Promise<LoadResult>): Promise<RowResult> {
  const before = mainThreadCpuMs(env.pid);
  const result = await load();
  const perRequest = Math.round(((mainThreadCpuMs(env.pid) - before) / Math.max(1, result.requests)) * 100) / 100;
  const note = `server main thread's CPU per request ${perRequest} ms`;
  return { ...result, figures: { serverCpuMsPerRequest: perRequest }, note: result.note ? `${result.note}; ${note}` : note };
}
