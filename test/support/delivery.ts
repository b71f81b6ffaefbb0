/**
 * A test server's delivery job on a manual clock starting at `t0` (UNIX seconds): tests
 * move time with `clock` instead of sleeping. The server's own `now` follows the clock.
 */
import { ManualClock } from "../../src/jobs/clock.js";
import { DeliveryJob } from "../../src/jobs/scheduled-delivery.js";
import type { TestServer } from "./server.js";

export async function startManualDelivery(s: TestServer, t0: number): Promise<{ clock: ManualClock; job: DeliveryJob }> {
  const clock = new ManualClock(t0 * 1000);
  s.ctx.now = () => clock.now();
  const job = new DeliveryJob(s.ctx, clock);
  await job.start();
  return { clock, job };
}
