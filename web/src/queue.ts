/**
 * The app's one event queue: POST /register, then GET /events long-polls for as long as the
 * page is open. BAD_EVENT_QUEUE_ID (the server dropped the queue) means register again and
 * reload everything; network and server errors back off (1 s doubling to 30 s, with jitter);
 * 429 waits as long as the server asks.
 */
import { api, ApiError, NetworkError } from "./api.js";

export interface QueueHandlers {
  /** A fresh /register state: replace everything. */
  onRegister(state: Record<string, any>): void | Promise<void>;
  onEvents(events: Record<string, any>[]): void;
  /** Connection state for the banner: true while the server cannot be reached. */
  onTrouble(trouble: boolean): void;
}

const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  include_subscribers: false,
  client_capabilities: { notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: false, stream_typing_notifications: true, user_settings_object: true, empty_topic_name: true },
};

export class EventQueue {
  private queueId = "";
  private lastEventId = -1;
  private stopped = false;
  private failures = 0;
  private abort = new AbortController();

  constructor(private readonly handlers: QueueHandlers) {}

  async start(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.queueId) await this.register();
        const res = await api<{ events: Record<string, any>[] }>("GET", "/events", { queue_id: this.queueId, last_event_id: this.lastEventId }, this.abort.signal);
        this.recovered();
        for (const e of res.events) this.lastEventId = Math.max(this.lastEventId, e.id);
        const events = res.events.filter((e) => e.type !== "heartbeat");
        if (events.length) this.handlers.onEvents(events);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.code === "BAD_EVENT_QUEUE_ID") {
          this.queueId = "";
          continue;
        }
        if (err instanceof ApiError && err.status === 401) return; // on the way to the sign-in page
        await this.backOff(err);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async register(): Promise<void> {
    const state = await api("POST", "/register", REGISTER_PARAMS);
    this.queueId = state.queue_id;
    this.lastEventId = state.last_event_id;
    await this.handlers.onRegister(state);
  }

  private recovered(): void {
    if (this.failures) this.handlers.onTrouble(false);
    this.failures = 0;
  }

  private async backOff(err: unknown): Promise<void> {
    this.failures++;
    let ms = Math.min(30000, 1000 * 2 ** (this.failures - 1)) * (0.5 + Math.random() / 2);
    if (err instanceof ApiError && err.status === 429) ms = Math.max(1000, Number(err.body["retry-after"] ?? 1) * 1000);
    else if (!(err instanceof NetworkError) && !(err instanceof ApiError && err.status >= 500)) {
      // A 4xx other than the cases above is a bug on our side: still retry, slowly.
      console.error("event queue:", err);
    }
    if (this.failures >= 2) this.handlers.onTrouble(true);
    await new Promise((r) => setTimeout(r, ms));
  }
}
