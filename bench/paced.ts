/**
 * Load at a fixed rate, evenly spaced: request i is due at start + i / rate, whatever the
 * answers before it (an open loop, as independent clients are). autocannon's rate mode
 * instead lets each connection spend its share of a second at once, so a "200 per second"
 * run is bursts of 20 requests. Latency counts from the moment a request was due, so time
 * spent waiting for a free connection (at most `connections`) is counted too. Requests go
 * through the lean client of raw-http.ts. Between requests due less than 2 ms apart the
 * generator does not sleep on a timer (whose 1 ms granularity, and its lateness when
 * responses are being read, sent requests in bursts up to 3–4 ms late against the bare
 * server), nor spin on setImmediate (which kept a whole core busy: on a machine of two
 * cores, one taken from the server under test and its GC and I/O threads): it sleeps at
 * most SHORT_SLEEP_MS in Atomics.wait (a futex with a timeout, no CPU), then reads the
 * responses that arrived and checks the clock again. A response that arrives during such a
 * sleep is read at most SHORT_SLEEP_MS late.
 */
import { openRawConnection, requestsOf, type RawConnection, type RawLoadSpec } from "./raw-http.js";

export interface PacedSpec extends RawLoadSpec {
  /** Requests per second, evenly spaced. */
  rate: number;
}

export async function pacedLoad(port: number, spec: PacedSpec): Promise<{ latencies: number[]; failures: number; seconds: number }> {
  const requests = requestsOf(spec);
  const latencies: number[] = [];
  let failures = 0;
  const total = Math.round(spec.rate * spec.seconds);
  const due: number[] = [];
  let sent = 0;
  let answered = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const idle: RawConnection[] = [];
  const dispatch = () => {
    while (due.length > 0 && idle.length > 0) {
      const c = idle.pop()!;
      c.busy = true;
      c.dueAt = due.shift()!;
      c.socket.write(requests[sent++ % requests.length]);
    }
  };
  const answer = (c: RawConnection, status: number) => {
    latencies.push(performance.now() - c.dueAt);
    if (status !== 200) failures++;
    c.busy = false;
    idle.push(c);
    if (++answered === total) finished();
    dispatch();
  };
  const connections = await Promise.all(Array.from({ length: spec.connections }, () => openRawConnection(port, answer, () => (failures++, ++answered === total && finished()))));
  idle.push(...connections);
  const started = performance.now();
  for (let next = 0; next < total; ) {
    const now = performance.now();
    for (; next < total && started + (next * 1000) / spec.rate <= now; next++) due.push(started + (next * 1000) / spec.rate);
    dispatch();
    if (next < total) await untilNear(started + (next * 1000) / spec.rate);
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  for (const c of connections) c.socket.destroy();
  return { latencies, failures, seconds };
}

/** The longest sleep between two looks at the sockets when requests are due less than 2 ms apart. */
const SHORT_SLEEP_MS = 0.1;
/** A cell nobody notifies: Atomics.wait on it is a sleep of the given length. */
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Resolves shortly before `at` (a timer) or, when `at` is under 2 ms away, after a sleep of
 * at most SHORT_SLEEP_MS and one turn of the event loop (which reads the responses in).
 */
function untilNear(at: number): Promise<void> {
  const ms = at - performance.now();
  if (ms > 2) return new Promise((resolve) => setTimeout(resolve, ms - 1));
  if (ms > 0) Atomics.wait(sleepCell, 0, 0, Math.min(ms, SHORT_SLEEP_MS));
  return new Promise((resolve) => setImmediate(resolve));
}
