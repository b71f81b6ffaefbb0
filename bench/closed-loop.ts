/**
 * Load as fast as the server answers (a closed loop: each connection sends its next
 * request when the previous response is complete) through the lean client of
 * raw-http.ts. Used where autocannon itself is the limit: against a bare Node server
 * sending a 3.5 MB body, autocannon (which parses every body) reached 124 req/s and this
 * client 560 on the same machine.
 */
import { openRawConnection, requestsOf, type RawConnection, type RawLoadSpec } from "./raw-http.js";

export async function closedLoopLoad(port: number, spec: RawLoadSpec): Promise<{ latencies: number[]; failures: number; seconds: number }> {
  const requests = requestsOf(spec);
  const latencies: number[] = [];
  let failures = 0;
  let sent = 0;
  let open = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  let endsAt = Infinity;
  const next = (c: RawConnection) => {
    if (performance.now() >= endsAt) {
      c.busy = false;
      c.socket.destroy();
      if (--open === 0) finished();
      return;
    }
    c.busy = true;
    c.dueAt = performance.now();
    c.socket.write(requests[sent++ % requests.length]);
  };
  const answer = (c: RawConnection, status: number) => {
    latencies.push(performance.now() - c.dueAt);
    if (status < 200 || status > 299) failures++;
    next(c);
  };
  const lost = () => {
    failures++;
    if (--open === 0) finished();
  };
  const connections = await Promise.all(Array.from({ length: spec.connections }, () => openRawConnection(port, answer, lost)));
  open = connections.length;
  const started = performance.now();
  endsAt = started + spec.seconds * 1000;
  for (const c of connections) next(c);
  await done;
  return { latencies, failures, seconds: (performance.now() - started) / 1000 };
}
