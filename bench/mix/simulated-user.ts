/**
 * One person using a chat client: a registered event queue with a long-poll always waiting
 * (re-polled as events arrive, re-registered after BAD_EVENT_QUEUE_ID), and the actions the
 * load picks for them (see MIX in ramp.ts). Requests go to `base` (one node or the proxy).
 */
import { basicAuth, form, type BenchUser } from "../http-client.js";

export interface Sample {
  action: string;
  ms: number;
  ok: boolean;
  /** For a failure: the status and the server's message (or the client's error). */
  failure?: string;
}

export class SimulatedUser {
  private queueId = "";
  private lastEventId = -1;
  private stopped = false;
  private polling: Promise<void> | undefined;
  /** A recent message this user saw, to react to. */
  lastMessageId: number | undefined;
  /** Messages this user has reacted to (the next reaction there removes it). */
  readonly reacted = new Set<number>();

  constructor(
    private readonly base: string,
    readonly user: BenchUser,
    private readonly record: (s: Sample) => void,
  ) {}

  /** Registers (a slim state fetch: the mix measures use, issue 14's rows measure /register) and starts polling. */
  async start(): Promise<void> {
    await this.register();
    this.polling = this.pollLoop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.polling?.catch(() => undefined);
  }

  private readonly abort = new AbortController();

  private async register(): Promise<void> {
    const body = await this.call("register", "POST", "/register", {
      event_types: JSON.stringify(["message", "reaction", "typing", "presence", "update_message", "delete_message"]),
      fetch_event_types: JSON.stringify(["message"]),
      client_capabilities: JSON.stringify({ notification_settings_null: true, simplified_presence_events: true }),
    });
    if (!body) throw new Error(`register failed for ${this.user.email}`);
    this.queueId = body.queue_id as string;
    this.lastEventId = body.last_event_id as number;
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const res = await fetch(`${this.base}/api/v1/events?queue_id=${encodeURIComponent(this.queueId)}&last_event_id=${this.lastEventId}`, {
          headers: { authorization: basicAuth(this.user) },
          signal: this.abort.signal,
        });
        const body = (await res.json()) as Record<string, any>;
        if (res.status === 200) {
          for (const event of body.events as Array<Record<string, any>>) {
            this.lastEventId = event.id as number;
            if (event.type === "message") this.lastMessageId = event.message.id as number;
          }
        } else if (body.code === "BAD_EVENT_QUEUE_ID") {
          this.record({ action: "poll", ms: 0, ok: false, failure: "BAD_EVENT_QUEUE_ID" });
          await this.register();
        } else {
          this.record({ action: "poll", ms: 0, ok: false, failure: `${res.status} ${String(body.msg)}` });
          await new Promise((r) => setTimeout(r, 1000));
        }
      } catch (err) {
        if (this.stopped) return;
        this.record({ action: "poll", ms: 0, ok: false, failure: (err as Error).message });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** One timed request; the JSON body when it succeeded. */
  async call(action: string, method: string, path: string, fields: Record<string, string | number> = {}): Promise<Record<string, unknown> | undefined> {
    const encoded = form(fields);
    const get = method === "GET";
    const started = performance.now();
    try {
      const res = await fetch(`${this.base}/api/v1${path}${get && encoded ? `?${encoded}` : ""}`, {
        method,
        headers: { authorization: basicAuth(this.user), ...(get ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
        body: get ? undefined : encoded,
      });
      const body = (await res.json()) as Record<string, unknown>;
      const ok = res.status === 200;
      this.record({ action, ms: performance.now() - started, ok, ...(ok ? {} : { failure: `${res.status} ${String(body.msg)}` }) });
      return ok ? body : undefined;
    } catch (err) {
      this.record({ action, ms: performance.now() - started, ok: false, failure: (err as Error).message });
      return undefined;
    }
  }
}
