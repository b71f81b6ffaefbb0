/**
 * The delivery job of scheduled messages and reminders. It sleeps until the earliest
 * pending delivery time (re-armed when a nearer one is scheduled: ctx.deliveryJob.wakeAt),
 * delivers everything due, and at start-up delivers whatever came due while it was down.
 * Each row is claimed in the database by the transaction that sends it
 * (actions/scheduled-delivery.ts), never in memory, so several processes may run this job.
 */
import type { AppContext } from "../context.js";
import { deliverScheduled, type DeliveryOutcome } from "../actions/scheduled-delivery.js";
import { dueScheduledIds, nextDueTimestamp } from "../db/queries/scheduled-messages.js";
import type { Clock } from "./clock.js";

/** Due rows read per query; a pass keeps reading until nothing is due. */
const BATCH = 100;
/** Deliveries in flight at once on PostgreSQL (each on its own pooled connection). */
const POSTGRES_PARALLEL_DELIVERIES = 4;
/** Rows held by another process (or edited under us) are tried again after this long. */
const RETRY_MS = 1000;

export class DeliveryJob {
  private cancelTimer: (() => void) | null = null;
  private armedAtMs: number | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Delivered, failed and skipped counts since start (for logs and tests). */
  readonly counts: Record<DeliveryOutcome, number> = { delivered: 0, failed: 0, skipped: 0 };

  constructor(
    private readonly ctx: AppContext,
    private readonly clock: Clock,
  ) {}

  /** Starts the job: one pass now (everything already due), then timers. */
  start(): Promise<void> {
    this.ctx.deliveryJob = this;
    return this.runPass();
  }

  /** A delivery time was set: wake then if that is sooner than the armed timer. */
  wakeAt(timestampSeconds: number): void {
    const atMs = timestampSeconds * 1000;
    if (this.stopped || (this.armedAtMs !== null && this.armedAtMs <= atMs)) return;
    if (this.running) {
      // The pass arms the timer from the database when it ends.
      this.again = true;
      return;
    }
    this.arm(atMs);
  }

  /** Stops the timers and waits for the pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    if (this.ctx.deliveryJob === this) this.ctx.deliveryJob = undefined;
    await this.running;
  }

  /** Resolves when no pass is under way (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private arm(atMs: number): void {
    this.disarm();
    this.armedAtMs = atMs;
    this.cancelTimer = this.clock.setTimer(atMs, () => {
      this.armedAtMs = null;
      this.cancelTimer = null;
      void this.runPass();
    });
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.armedAtMs = null;
  }

  /** One pass at a time; a wake-up during a pass runs another one right after. */
  private runPass(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.deliverDue();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.ctx.log?.error({ err }, "scheduled delivery pass failed");
        if (!this.stopped) this.arm(this.clock.now() + RETRY_MS);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async deliverDue(): Promise<void> {
    const tried = new Set<number>();
    let skipped = false;
    for (;;) {
      if (this.stopped) return;
      const nowSeconds = Math.floor(this.clock.now() / 1000);
      const ids = (await dueScheduledIds(this.ctx.db, nowSeconds, BATCH + tried.size)).filter((id) => !tried.has(id));
      if (ids.length === 0) break;
      for (const id of ids) tried.add(id);
      // Deliveries run side by side on PostgreSQL (each claims its own row); SQLite has one writer.
      const workers = this.ctx.dialect === "postgres" ? POSTGRES_PARALLEL_DELIVERIES : 1;
      const queue = [...ids];
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let id = queue.shift(); id !== undefined && !this.stopped; id = queue.shift()) {
            const outcome = await deliverScheduled(this.ctx, id);
            this.counts[outcome] += 1;
            if (outcome === "skipped") skipped = true;
          }
        }),
      );
      if (this.stopped) return;
    }
    const next = await nextDueTimestamp(this.ctx.db);
    if (this.stopped) return;
    // Rows skipped this pass (held elsewhere, edited under us) are still due: look again soon.
    const retryAt = skipped ? this.clock.now() + RETRY_MS : null;
    const nextAt = next === null ? null : Math.max(next * 1000, this.clock.now());
    const atMs = retryAt === null ? nextAt : nextAt === null ? retryAt : Math.max(retryAt, Math.min(nextAt, retryAt));
    if (atMs === null) this.disarm();
    else this.arm(atMs);
  }
}
