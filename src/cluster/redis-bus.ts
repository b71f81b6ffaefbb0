/**
 * The event bus of several nodes: each node delivers its own events at once (in-process),
 * and appends them to one Redis stream that every other node reads in order. A stream,
 * not pub/sub: a node whose connection drops reads on from the last entry it saw, so a
 * Redis restart loses no event for queues that survive it. Cache changes that carry no
 * event (a new API key, a password) travel the same way.
 * Each node numbers its entries: a receiver skips an entry it already had (ioredis sends
 * again a command Redis did not answer before it failed) and treats a missing number as a
 * gap (a Redis that crashed lost entries not yet read), never as nothing.
 */
import type { Redis } from "ioredis";
import type { Change } from "../caches/change.js";
import { InProcessEventBus, type EventAudience, type EventListener, type EventPublisher, type PublishedEvent } from "../events/publisher.js";
import type { ChatEvent } from "../events/types.js";

/** Entries kept in the stream: enough for a node to catch up after a long Redis outage. */
const STREAM_LENGTH = 100_000;
/** How long one XREAD waits before it is issued again (bounds how long stop() waits). */
const BLOCK_MS = 2_000;

/** One stream entry: an event or a cache change, with the node that wrote it and its number there. */
type Entry = { node: string; seq?: number } & ({ event: PublishedEvent } | { change: Change });

export interface RedisBusHooks {
  /** A cache change written by another node. */
  onChange(change: Change): void;
  /** Entries may have been missed (the stream was trimmed past this node's position). */
  onGap(): void;
  onError(err: Error): void;
}

export class RedisEventBus implements EventPublisher {
  private readonly local = new InProcessEventBus();
  private lastId = "$";
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly stream: string;
  /** The number of this node's last entry. */
  private seq = 0;
  /** The number of the last entry read from each other node. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly nodeId: string,
    keyPrefix: string,
    /** Appends (with ioredis's offline queue: appends made while Redis is down are sent on reconnect). */
    private readonly writer: Redis,
    /** A connection of its own: XREAD blocks it. */
    private readonly reader: Redis,
    private readonly hooks: RedisBusHooks,
  ) {
    this.stream = `${keyPrefix}events`;
  }

  publish(realmId: number, event: ChatEvent, userIds: readonly number[], audience?: EventAudience): void {
    this.local.publish(realmId, event, userIds, audience);
    const published: PublishedEvent = audience === undefined ? { realmId, event, userIds } : { realmId, event, userIds, audience };
    this.append({ node: this.nodeId, event: published });
  }

  /** Tells the other nodes about a change of cached rows (sent once per turn of the event loop). */
  publishChange(change: Change): void {
    if (this.pendingChanges.size === 0) setImmediate(() => this.appendChanges());
    this.pendingChanges.set(JSON.stringify(change), change);
  }

  private readonly pendingChanges = new Map<string, Change>();

  private appendChanges(): void {
    for (const change of this.pendingChanges.values()) this.append({ node: this.nodeId, change });
    this.pendingChanges.clear();
  }

  subscribe(listener: EventListener): () => void {
    return this.local.subscribe(listener);
  }

  subscribeAll(listener: EventListener): () => void {
    return this.local.subscribeAll(listener);
  }

  /**
   * Reads other nodes' entries from now on (or after `afterId`, an entry already handled);
   * resolves once this node's position is known.
   */
  async start(afterId?: string): Promise<void> {
    this.lastId = afterId ?? (await this.newestId());
    this.running = this.readLoop(afterId !== undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.reader.disconnect();
    await this.running;
  }

  private append(entry: Entry): void {
    entry.seq = ++this.seq;
    this.writer.xadd(this.stream, "MAXLEN", "~", String(STREAM_LENGTH), "*", "e", JSON.stringify(entry)).catch((err: Error) => this.hooks.onError(err));
  }

  private async newestId(): Promise<string> {
    const newest = (await this.reader.xrevrange(this.stream, "+", "-", "COUNT", 1)) as Array<[string, string[]]>;
    return newest.length > 0 ? newest[0][0] : "0-0";
  }

  /** Reads on from lastId; after a failure (or a given start) first checks nothing was trimmed unread. */
  private async readLoop(resuming: boolean): Promise<void> {
    let failed = resuming;
    while (!this.stopped) {
      try {
        if (failed && (await this.trimmedPast(this.lastId))) this.hooks.onGap();
        failed = false;
        const batches = (await this.reader.xread("COUNT", 1000, "BLOCK", BLOCK_MS, "STREAMS", this.stream, this.lastId)) as Array<[string, Array<[string, string[]]>]> | null;
        for (const [, entries] of batches ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            this.receive(fields[1]);
          }
        }
      } catch (err) {
        if (this.stopped) return;
        failed = true;
        this.hooks.onError(err as Error);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /**
   * Whether entries this node had not read may have been trimmed away. Trimming removes the
   * oldest entries, so while this node's last entry is still there nothing after it is gone;
   * when it is gone too, this says yes (at worst a needless re-register, never a silent gap).
   */
  private async trimmedPast(lastId: string): Promise<boolean> {
    if (lastId !== "0-0" && (await this.reader.xrange(this.stream, lastId, lastId)).length > 0) return false;
    let info: unknown[];
    try {
      info = (await this.reader.xinfo("STREAM", this.stream)) as unknown[];
    } catch {
      return false; // no stream yet: nothing was trimmed
    }
    const field = (name: string) => info[info.indexOf(name) + 1];
    const trimmed = Number(field("entries-added")) > Number(field("length"));
    const first = field("first-entry") as [string, string[]] | null;
    return trimmed && first !== null && compareIds(first[0], lastId) > 0;
  }

  private receive(json: string | undefined): void {
    if (json === undefined) return;
    const entry = JSON.parse(json) as Entry;
    if (entry.node === this.nodeId) return;
    if (entry.seq !== undefined) {
      const last = this.seen.get(entry.node);
      if (last !== undefined && entry.seq <= last) return;
      if (last !== undefined && entry.seq > last + 1) this.hooks.onGap();
      this.seen.set(entry.node, entry.seq);
    }
    if ("change" in entry) return this.hooks.onChange(entry.change);
    const { realmId, event, userIds, audience } = entry.event;
    this.local.publish(realmId, event, userIds, audience);
  }
}

/** Orders stream ids ("ms-seq"). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(BigInt);
  const [bm, bs] = b.split("-").map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}
