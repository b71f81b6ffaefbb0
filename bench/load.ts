/**
 * One load measurement with autocannon. Latencies are collected from each response's own
 * timing (sub-millisecond), because autocannon's histogram rounds to whole milliseconds.
 */
import autocannon from "autocannon";
import { CONNECTIONS, SECONDS, WARMUP_SECONDS } from "./settings.js";
import { basicAuth, type BenchUser } from "./http-client.js";
import { pacedLoad } from "./paced.js";
import { closedLoopLoad } from "./closed-loop.js";

export interface LoadSpec {
  method?: "GET" | "POST" | "DELETE";
  path: string;
  /** A form body (sent as application/x-www-form-urlencoded). */
  body?: string;
  /** One user, or several that successive requests take turns as (per-user limits). */
  auth?: BenchUser | BenchUser[];
  /** Requests per second, evenly spaced over at most BENCH_CONNECTIONS connections (paced.ts); unset: as fast as the server answers. */
  rate?: number;
  /** A cycle of requests each connection repeats, on a path of its own from `paths`. */
  sequence?: Array<{ method: "POST" | "DELETE"; body: string }>;
  paths?: string[];
  /** Defaults to BENCH_SECONDS. */
  seconds?: number;
  /** "lean": the closed loop of closed-loop.ts instead of autocannon, for bodies of megabytes (autocannon parses them and becomes the limit). */
  client?: LoadClient;
}

export type LoadClient = "autocannon" | "lean";

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses other than 2xx, plus errors and timeouts. */
  failures: number;
  /** Responses received (the latencies counted). */
  requests: number;
  /** Set when the figures come from a run by request count (see runLoad). */
  note?: string;
}

/**
 * A timed run at BENCH_CONNECTIONS. When the server is so slow that fewer responses than
 * connections came back in that time (in-flight requests are not counted), the latencies
 * are taken from a second run of a fixed count instead, so slow rows still get a p99.
 */
export async function runLoad(port: number, spec: LoadSpec, measuring: () => void = () => undefined): Promise<LoadResult> {
  await warmUp(port, spec);
  // Whatever is sampled around the load (the server's CPU) starts here, after the warm-up.
  measuring();
  if (spec.rate) return atFixedRate(port, spec, spec.rate);
  if (spec.client === "lean") return leanClosedLoop(port, spec);
  const timed = await load(port, spec, { duration: spec.seconds ?? SECONDS });
  if (timed.responses >= CONNECTIONS) return timed.result;
  const counted = await load(port, spec, { amount: 2 * CONNECTIONS });
  return { ...counted.result, note: `too slow for a ${spec.seconds ?? SECONDS} s run: figures of ${2 * CONNECTIONS} requests instead` };
}

async function load(port: number, spec: LoadSpec, length: { duration: number } | { amount: number }): Promise<{ result: LoadResult; responses: number }> {
  const users = usersOf(spec);
  const headers: Record<string, string> = {};
  if (users.length === 1) headers.authorization = basicAuth(users[0]);
  if (spec.body !== undefined || spec.sequence) headers["content-type"] = "application/x-www-form-urlencoded";
  const latencies: number[] = [];
  const options: autocannon.Options = {
    url: `http://127.0.0.1:${port}${spec.path}`,
    method: spec.method ?? "GET",
    body: spec.body,
    headers,
    connections: CONNECTIONS,
    ...length,
    timeout: 120,
    ...requestsOf(spec, users, headers),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err: unknown, res: autocannon.Result) => (err ? reject(err) : resolve(res)));
    instance.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  latencies.sort((a, b) => a - b);
  return {
    responses: latencies.length,
    result: {
      // One decimal: a slow row may finish fewer than one request a second.
      requestsPerSecond: Math.round((latencies.length / result.duration) * 10) / 10,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      failures: result.non2xx + result.errors + result.timeouts,
      requests: latencies.length,
    },
  };
}

/**
 * WARMUP_SECONDS of the same load, not counted; not before per-connection cycles (a warm-up
 * cut between a reaction's add and its remove would make the measured run's first add
 * fail). Fixed-rate rows warm up at their rate too: their as-fast-as-it-goes twin warmed
 * the server but not paced.ts's generator, whose first run in a process put a p99 of
 * 99–130 ms on the bare server at 26,000 req/s (its unoptimized first moments).
 */
async function warmUp(port: number, spec: LoadSpec): Promise<void> {
  if (WARMUP_SECONDS <= 0 || spec.sequence) return;
  const warm = { ...spec, seconds: WARMUP_SECONDS };
  if (spec.rate) await atFixedRate(port, warm, spec.rate);
  else if (spec.client === "lean") await leanClosedLoop(port, warm);
  else await load(port, warm, { duration: WARMUP_SECONDS });
}

async function leanClosedLoop(port: number, spec: LoadSpec): Promise<LoadResult> {
  if (spec.sequence) throw new Error("the lean client sends one kind of request");
  const users = usersOf(spec);
  const run = await closedLoopLoad(port, { method: spec.method ?? "GET", path: spec.path, body: spec.body, users, seconds: spec.seconds ?? SECONDS, connections: CONNECTIONS });
  return summary(run);
}

/** A fixed-rate row: evenly spaced requests (paced.ts), not autocannon's per-second bursts. */
async function atFixedRate(port: number, spec: LoadSpec, rate: number): Promise<LoadResult> {
  if (spec.sequence) throw new Error("fixed-rate rows send one kind of request");
  const users = usersOf(spec);
  const run = await pacedLoad(port, { method: spec.method ?? "GET", path: spec.path, body: spec.body, users, rate, seconds: spec.seconds ?? SECONDS, connections: CONNECTIONS });
  return summary(run);
}

function summary(run: { latencies: number[]; failures: number; seconds: number }): LoadResult {
  const sorted = run.latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round((sorted.length / run.seconds) * 10) / 10,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    failures: run.failures,
    requests: sorted.length,
  };
}

/** The users successive requests take turns as (none: no Authorization). */
function usersOf(spec: LoadSpec): BenchUser[] {
  return spec.auth === undefined ? [] : Array.isArray(spec.auth) ? spec.auth : [spec.auth];
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return Math.round(value * 100) / 100;
}

/** autocannon's per-request hooks: rotating users, or a per-connection request cycle. */
function requestsOf(spec: LoadSpec, users: BenchUser[], headers: Record<string, string>): Partial<autocannon.Options> {
  if (spec.sequence) {
    const paths = spec.paths ?? [spec.path];
    let next = 0;
    return {
      initialContext: {},
      requests: spec.sequence.map((step) => ({
        method: step.method,
        body: step.body,
        setupRequest: (req: autocannon.Request, context: object) => {
          const own = context as { path?: string };
          own.path ??= paths[next++ % paths.length];
          return { ...req, path: own.path };
        },
      })),
    };
  }
  if (users.length > 1) {
    let next = 0;
    return {
      requests: [
        {
          setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, authorization: basicAuth(users[next++ % users.length]) } }),
        },
      ],
    };
  }
  return {};
}
