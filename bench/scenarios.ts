/**
 * Scenarios beyond the foundation's, added by each family as its endpoints land:
 * extra autocannon scenarios, and free-form reports (latency probes) run after them.
 */
import type { AppContext } from "../src/context.js";
import type { BenchSeed } from "./seed.js";
import type { Scenario } from "./run.js";

export interface ExtraScenarios {
  scenarios: Scenario[];
  reports: Array<(port: number) => Promise<void>>;
}

export async function extraScenarios(_ctx: AppContext, _seed: BenchSeed): Promise<ExtraScenarios> {
  return { scenarios: [], reports: [] };
}
