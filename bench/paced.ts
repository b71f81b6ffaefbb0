/**
 * Load at a fixed rate, evenly spaced: request i is due at start + i / rate, whatever the
 * answers before it (an open loop, as independent clients are). autocannon's rate mode
 * instead lets each connection spend its share of a second at once, so a "200 per second"
 * run is bursts of 20 requests. Latency counts from the moment a request was due, so time
 * spent waiting for a free connection (at most `connections`) is counted too. Requests are
 * prepared bytes on plain keep-alive sockets, so the generator's own cost stays small.
 */
import net from "node:net";
import { basicAuth, type BenchUser } from "./http-client.js";

export interface PacedSpec {
  method: string;
  path: string;
  body?: string;
  users: BenchUser[];
  rate: number;
  seconds: number;
  connections: number;
}

interface Connection {
  socket: net.Socket;
  busy: boolean;
  dueAt: number;
  pending: Buffer;
}

export async function pacedLoad(port: number, spec: PacedSpec): Promise<{ latencies: number[]; failures: number; seconds: number }> {
  const requests = (spec.users.length > 0 ? spec.users : [undefined]).map((user) => requestBytes(spec, user));
  const latencies: number[] = [];
  let failures = 0;
  const total = Math.round(spec.rate * spec.seconds);
  const due: number[] = [];
  let sent = 0;
  let answered = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const idle: Connection[] = [];
  const dispatch = () => {
    while (due.length > 0 && idle.length > 0) {
      const c = idle.pop()!;
      c.busy = true;
      c.dueAt = due.shift()!;
      c.socket.write(requests[sent++ % requests.length]);
    }
  };
  const answer = (c: Connection, status: number) => {
    latencies.push(performance.now() - c.dueAt);
    if (status !== 200) failures++;
    c.busy = false;
    idle.push(c);
    if (++answered === total) finished();
    dispatch();
  };
  const connections = await Promise.all(Array.from({ length: spec.connections }, () => open(port, answer, () => (failures++, ++answered === total && finished()))));
  idle.push(...connections);
  const started = performance.now();
  for (let next = 0; next < total; ) {
    const now = performance.now();
    for (; next < total && started + (next * 1000) / spec.rate <= now; next++) due.push(started + (next * 1000) / spec.rate);
    dispatch();
    if (next < total) await new Promise((r) => setTimeout(r, Math.max(0, started + (next * 1000) / spec.rate - performance.now())));
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  for (const c of connections) c.socket.destroy();
  return { latencies, failures, seconds };
}

function requestBytes(spec: PacedSpec, user: BenchUser | undefined): Buffer {
  const lines = [`${spec.method} ${spec.path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: keep-alive"];
  if (user) lines.push(`Authorization: ${basicAuth(user)}`);
  if (spec.body !== undefined) lines.push("Content-Type: application/x-www-form-urlencoded", `Content-Length: ${Buffer.byteLength(spec.body)}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${spec.body ?? ""}`);
}

/** A keep-alive socket that reads whole responses (headers and a Content-Length body). */
function open(port: number, answer: (c: Connection, status: number) => void, lost: () => void): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const c: Connection = { socket: net.connect({ host: "127.0.0.1", port }, () => resolve(c)), busy: false, dueAt: 0, pending: Buffer.alloc(0) };
    c.socket.setNoDelay(true);
    c.socket.on("error", reject);
    c.socket.on("close", () => c.busy && lost());
    c.socket.on("data", (chunk: Buffer) => {
      c.pending = c.pending.length === 0 ? chunk : Buffer.concat([c.pending, chunk]);
      const headerEnd = c.pending.indexOf("\r\n\r\n");
      if (headerEnd < 0) return;
      const head = c.pending.subarray(0, headerEnd).toString("latin1");
      const end = headerEnd + 4 + Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (c.pending.length < end) return;
      c.pending = c.pending.subarray(end);
      answer(c, Number(head.slice(9, 12)));
    });
  });
}
