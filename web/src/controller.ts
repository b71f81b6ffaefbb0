/**
 * What the components call: the store, the current narrow, and every request the app makes
 * beyond the event queue. State changes that the server confirms through an event are left
 * to the event (one source of truth); read marks are also applied at once so counts drop.
 */
import { createContext } from "preact";
import { api } from "./api.js";
import { apiNarrow, narrowKey, parseNarrowKey, type Narrow } from "./narrow.js";
import { PresenceReporter } from "./presence.js";
import { EventQueue } from "./queue.js";
import { Store } from "./store.js";
import type { Message } from "./types.js";

const PAGE = 50;

export class Controller {
  readonly store = new Store();
  narrow: Narrow | undefined;
  ready = false;
  trouble = false;
  /** A short message for the live region ("Draft saved", errors…). */
  notice = "";
  private queue: EventQueue;
  private presence = new PresenceReporter(this.store);
  private pendingRead = new Set<number>();
  private readTimer: ReturnType<typeof setTimeout> | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.queue = new EventQueue({
      onRegister: (state) => this.onRegister(state),
      onEvents: (events) => {
        for (const e of events) this.store.apply(e);
        this.reloadDropped();
        this.store.changed();
      },
      onTrouble: (t) => {
        this.trouble = t;
        this.store.changed();
      },
    });
  }

  start(): void {
    void this.queue.start();
    addEventListener("hashchange", () => this.openFromHash());
  }

  private async onRegister(state: Record<string, any>): Promise<void> {
    this.store.load(state);
    this.ready = true;
    this.presence.start();
    this.openFromHash();
  }

  /** The narrow the URL's hash names; a hash that names none keeps the current one (or opens the first channel). */
  private openFromHash(): void {
    // Not decoded as a whole: a topic inside is percent-encoded on its own (narrowKey).
    const fromHash = parseNarrowKey(location.hash.slice(1));
    if (!fromHash && this.narrow && this.store.lists.size) return;
    const first = this.store.subscriptions[0];
    const narrow = fromHash ?? (first ? { kind: "channel" as const, streamId: first.stream_id } : { kind: "dm" as const, userIds: [] });
    void this.open(narrow);
  }

  /** Shows a narrow: its messages from the newest back, and a channel's topics for the sidebar. */
  async open(narrow: Narrow): Promise<void> {
    this.narrow = narrow;
    const key = narrowKey(narrow);
    if (location.hash.slice(1) !== key) history.replaceState(null, "", `#${key}`);
    this.store.changed();
    const tasks: Promise<unknown>[] = [];
    if (!this.store.lists.has(key)) tasks.push(this.fetchMessages(narrow, "newest"));
    if (narrow.kind !== "dm") tasks.push(this.loadTopics(narrow.streamId));
    await Promise.all(tasks);
  }

  /** Messages moved between topics or channels drop the loaded lists and topics: the open narrow's come again. */
  private reloadDropped(): void {
    const n = this.narrow;
    if (!n) return;
    if (!this.store.lists.has(narrowKey(n))) void this.fetchMessages(n, "newest");
    if (n.kind !== "dm" && !this.store.topics.has(n.streamId)) void this.loadTopics(n.streamId);
  }

  async loadTopics(streamId: number): Promise<void> {
    if (this.store.topics.has(streamId)) return;
    const res = await this.call(() => api<{ topics: { name: string; max_id: number }[] }>("GET", `/users/me/${streamId}/topics`));
    if (!res) return;
    this.store.topics.set(streamId, res.topics.map((t) => ({ name: t.name, max_id: t.max_id })));
    this.store.changed();
  }

  /** Loads the newest page, or the page before the oldest loaded message. */
  async fetchMessages(narrow: Narrow, which: "newest" | "older"): Promise<void> {
    const key = narrowKey(narrow);
    let list = this.store.lists.get(key);
    if (list?.loading || (which === "older" && list?.foundOldest)) return;
    if (!list) this.store.lists.set(key, (list = { ids: [], foundOldest: false, loading: false }));
    list.loading = true;
    const anchor = which === "newest" || !list.ids.length ? "newest" : list.ids[0];
    const res = await this.call(() =>
      api<{ messages: Message[]; found_oldest: boolean }>("GET", "/messages", {
        anchor,
        num_before: PAGE,
        num_after: 0,
        include_anchor: which === "newest",
        narrow: apiNarrow(narrow, this.store.me.user_id),
        apply_markdown: true,
        client_gravatar: false,
      }),
    );
    const now = this.store.lists.get(key);
    if (now) now.loading = false;
    if (res) this.store.addToList(narrow, res.messages, res.found_oldest);
    this.store.changed();
  }

  /** Called as unread messages scroll into view: marked read locally at once, on the server in batches. */
  markRead(id: number): void {
    if (!this.store.unread.has(id) || document.visibilityState !== "visible") return;
    this.store.unread.delete(id);
    this.pendingRead.add(id);
    clearTimeout(this.readTimer);
    this.readTimer = setTimeout(() => {
      const messages = [...this.pendingRead];
      this.pendingRead.clear();
      void this.call(() => api("POST", "/messages/flags", { messages, op: "add", flag: "read" }));
    }, 300);
    this.store.changed();
  }

  say(text: string): void {
    this.notice = text;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = "";
      this.store.changed();
    }, 6000);
    this.store.changed();
  }

  /** Runs a request; its error becomes the notice and the result undefined. */
  async call<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      this.say((err as Error).message);
      return undefined;
    }
  }
}

export const Ctl = createContext<Controller>(undefined as unknown as Controller);
