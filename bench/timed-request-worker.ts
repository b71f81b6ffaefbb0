/**
 * The thread of bench/timed-request.ts: requests one at a time, each timed with fetch. It
 * asks for a higher scheduling priority (Linux's nice value is per thread; root may lower
 * it): with the server and the bench's main thread each busy on one of two cores, an
 * answer otherwise waits tens of milliseconds for this thread to be scheduled to read it.
 */
import os from "node:os";
import { parentPort } from "node:worker_threads";

try {
  os.setPriority(-10);
} catch {
  // Not permitted: timed at the default priority.
}
import type { TimedRequest } from "./timed-request.js";

parentPort!.on("message", async (request: TimedRequest) => {
  const start = performance.now();
  try {
    const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
    const text = await res.text();
    parentPort!.postMessage({ ms: performance.now() - start, status: res.status, text });
  } catch (err) {
    parentPort!.postMessage({ ms: performance.now() - start, status: 0, text: String(err) });
  }
});
