/**
 * Deletes expired browser sessions once an hour (and at start-up). Expired sessions are
 * refused on use whatever this job does (session-auth.ts checks expiry every time); the
 * sweep only keeps the table from growing with sessions nobody came back to. Several
 * processes may run it: the delete is idempotent.
 */
import { nowSeconds, type AppContext } from "../context.js";
import { deleteExpiredSessions } from "../db/queries/sessions.js";
import type { Clock } from "./clock.js";

const INTERVAL_MS = 3600 * 1000;

export class SessionSweepJob {
  private cancelTimer: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly clock: Clock,
  ) {}

  /** Sweeps now, then every hour. */
  start(): Promise<void> {
    return this.sweep();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    await this.running;
  }

  /** Resolves when no sweep is under way (tests). */
  async idle(): Promise<void> {
    await this.running;
  }

  private sweep(): Promise<void> {
    const run = (async () => {
      try {
        await deleteExpiredSessions(this.ctx.db, nowSeconds(this.ctx));
      } catch (err) {
        this.ctx.log?.error({ err }, "expired-session sweep failed");
      }
    })();
    this.running = run.finally(() => {
      this.running = null;
      if (!this.stopped) this.cancelTimer = this.clock.setTimer(this.clock.now() + INTERVAL_MS, () => void this.sweep());
    });
    return this.running;
  }
}
