/**
 * One HTTP request timed on a thread of its own: the bench's main thread may be busy
 * reading thousands of answers at that moment (a fan-out), and a request timed there
 * would include the wait for its turn. The worker's loop has nothing else to do.
 */
import { Worker } from "node:worker_threads";

export interface TimedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  ms: number;
  status: number;
  text: string;
}

export class RequestTimer {
  private readonly worker = new Worker(new URL("./timed-request-worker.js", import.meta.url));
  private pending: ((answer: Answer) => void)[] = [];

  constructor() {
    this.worker.on("message", (answer: Answer) => this.pending.shift()?.(answer));
  }

  /** Milliseconds from sending the request until its whole response arrived; anything but 200 throws. */
  async time(request: TimedRequest): Promise<number> {
    const answer = await new Promise<Answer>((resolve) => {
      this.pending.push(resolve);
      this.worker.postMessage(request);
    });
    if (answer.status !== 200) throw new Error(`${request.method} ${request.url}: ${answer.status} ${answer.text.slice(0, 200)}`);
    return answer.ms;
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
