/** The thread of bench/timed-request.ts: requests one at a time, each timed with fetch. */
import { parentPort } from "node:worker_threads";
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
