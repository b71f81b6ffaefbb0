/**
 * Many event queues, each with a GET /events long-poll waiting on a real socket of its own.
 * Plain sockets and a minimal HTTP/1.1 reader keep the bench process's own cost per
 * response small, so timing 10,000 polls returning measures the server, not the client.
 * A poll that returns is sent again (with the new last_event_id) like a client's loop;
 * during a measurement, re-polls wait until every poll has returned the awaited message.
 * The same pool, opened on the bare server's GET /bare-poll, times the baseline: a bare
 * Fastify server answering as many waiting polls with a body of the same size.
 */
import net from "node:net";
import { api, basicAuth, type BenchUser } from "./http-client.js";

const CONNECT_CONCURRENCY = 100;
const CREATE_CONCURRENCY = 20;

class LongPoll {
  waiting = false;
  closed = false;
  countedToken = "";
  private socket!: net.Socket;
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly pool: PollPool,
    /** The request's text for the current last_event_id. */
    private readonly request: (lastEventId: number) => string,
    public lastEventId: number,
  ) {}

  connect(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket = net.connect({ host: "127.0.0.1", port }, () => resolve());
      this.socket.setNoDelay(true);
      this.socket.on("data", (chunk: Buffer) => this.read(chunk));
      this.socket.on("error", (err) => {
        this.pool.fail(err.message);
        reject(err);
      });
      this.socket.on("close", () => {
        this.closed = true;
        this.waiting = false;
      });
    });
  }

  send(): void {
    if (this.closed) return;
    this.waiting = true;
    this.socket.write(this.request(this.lastEventId));
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
  }

  /** Collects bytes until a whole response (headers and Content-Length body) is in. */
  private read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const headerEnd = this.pending.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const head = this.pending.subarray(0, headerEnd).toString("latin1");
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headerEnd + 4 + length;
      if (this.pending.length < end) return;
      const status = Number(head.slice(9, 12));
      const body = this.pending.subarray(headerEnd + 4, end);
      this.pending = this.pending.subarray(end);
      this.waiting = false;
      this.pool.returned(this, status, body);
    }
  }
}

export class PollPool {
  failures = 0;
  lastError = "";
  private polls: LongPoll[] = [];
  private watch: { token: string; remaining: number; finished: (at: number) => void } | null = null;
  private held: LongPoll[] | null = null;

  /** Bytes of the last answer returned (headers excluded). */
  lastBodyBytes = 0;

  /** A queue (message events only) per user, each with a waiting long-poll. */
  static async open(port: number, users: BenchUser[]): Promise<PollPool> {
    const pool = new PollPool();
    const polls = await inBatches(users, CREATE_CONCURRENCY, async (user) => {
      const q = await api<{ queue_id: string }>(port, user, "GET", `/events?dont_block=true&event_types=${encodeURIComponent('["message"]')}`);
      const head = `HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basicAuth(user)}\r\nConnection: keep-alive\r\n\r\n`;
      return new LongPoll(pool, (last) => `GET /api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=${last} ${head}`, -1);
    });
    return pool.connectAll(port, polls);
  }

  /** `count` waiting polls on the bare server (bench/bare-server.ts). */
  static bare(port: number, count: number): Promise<PollPool> {
    const pool = new PollPool();
    const request = () => "GET /bare-poll HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n";
    return pool.connectAll(port, Array.from({ length: count }, () => new LongPoll(pool, request, -1)));
  }

  private async connectAll(port: number, polls: LongPoll[]): Promise<PollPool> {
    await inBatches(polls, CONNECT_CONCURRENCY, async (poll) => {
      await poll.connect(port);
      poll.send();
      this.polls.push(poll);
    });
    return this;
  }

  /** Polls currently waiting on the server. */
  get open(): number {
    return this.polls.filter((p) => p.waiting && !p.closed).length;
  }

  get size(): number {
    return this.polls.length;
  }

  /**
   * Milliseconds from calling `send` until every poll has returned an answer containing
   * `token` (a string unique to the message sent).
   */
  async timeUntilAllReceive(token: string, send: () => Promise<unknown>, timeoutMs = 120_000, beforeRepolls?: () => Promise<unknown>): Promise<number> {
    this.held = [];
    const start = performance.now();
    const allReceived = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.watch?.remaining} of ${this.polls.length} polls did not receive the message within ${timeoutMs} ms${this.lastError ? ` (${this.lastError})` : ""}`)), timeoutMs);
      this.watch = { token, remaining: this.polls.length, finished: (at) => (clearTimeout(timer), resolve(at)) };
    });
    try {
      const [doneAt] = await Promise.all([allReceived, send()]);
      // The polls poll again only after this (a count of the server's work ends before them).
      await beforeRepolls?.();
      return doneAt - start;
    } finally {
      this.watch = null;
      const held = this.held;
      this.held = null;
      for (const poll of held) poll.send();
    }
  }

  returned(poll: LongPoll, status: number, body: Buffer): void {
    if (status !== 200) {
      this.fail(`GET /events: ${status} ${body.toString().slice(0, 200)}`);
      return;
    }
    this.lastBodyBytes = body.length;
    const w = this.watch;
    if (w && poll.countedToken !== w.token && body.includes(w.token)) {
      poll.countedToken = w.token;
      if (--w.remaining === 0) w.finished(performance.now());
    }
    const last = lastEventIdOf(body);
    if (last !== undefined) poll.lastEventId = last;
    if (this.held) this.held.push(poll);
    else poll.send();
  }

  fail(message: string): void {
    this.failures++;
    this.lastError = message;
  }

  close(): void {
    for (const poll of this.polls) poll.close();
    this.polls = [];
  }
}

async function inBatches<T, R>(items: T[], concurrency: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await each(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/**
 * The id of the last event in a GET /events answer. Parley writes each event's queue id as
 * its last key, so the tail of the body holds it: 10,000 answers are not parsed whole by the
 * one core the load generator has (that would time the client, not the server).
 */
function lastEventIdOf(body: Buffer): number | undefined {
  const tail = /"id":(\d+)\}\]\}\s*$/.exec(body.subarray(Math.max(0, body.length - 64)).toString("latin1"));
  if (tail) return Number(tail[1]);
  const events = (JSON.parse(body.toString()) as { events: Array<{ id: number }> }).events;
  return events.length > 0 ? events[events.length - 1].id : undefined;
}
