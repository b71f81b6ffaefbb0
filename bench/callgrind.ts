/**
 * A server process under `valgrind --tool=callgrind` and the user-space instructions it spends
 * on a piece of work (bench/instructions.ts per request, bench/fanout-instructions.ts per
 * fan-out): a count that does not move with the machine's load.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./processes.js";

const run = promisify(execFile);

/** A server under callgrind, counting nothing until the first measured request. */
export interface Counted {
  port: number;
  child: ChildProcess;
  outFile: string;
}

export async function startCounted(script: string, args: string[], env: NodeJS.ProcessEnv, dir: string, readyPath: string): Promise<Counted> {
  const port = await freePort();
  const outFile = path.join(dir, `callgrind.${path.basename(script, ".js")}.out`);
  const log = fs.openSync(path.join(dir, `server-${port}.log`), "a");
  const child = spawn("valgrind", ["--tool=callgrind", `--callgrind-out-file=${outFile}`, process.execPath, script, ...args], {
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  // A loaded shared machine can take many minutes to start Node under valgrind.
  for (let i = 0; i < 3600; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with code ${child.exitCode} (see ${dir})`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}${readyPath}`)).status < 500) return { port, child, outFile };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill();
  throw new Error(`${script} did not answer within 15 minutes under valgrind`);
}

export async function stop(server: Counted): Promise<void> {
  if (server.child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    server.child.once("exit", () => resolve());
    server.child.kill();
  });
}

/**
 * User-space instructions the server spends while `work` runs (from a zero of the counters to
 * a dump right after), without V8's optimizing compiler (see optimizingCompiler).
 */
export async function countInstructions(server: Counted, label: string, work: () => Promise<unknown>): Promise<number> {
  const pid = String(server.child.pid);
  await run("callgrind_control", ["--zero", pid]);
  await work();
  // Each dump writes a new numbered file next to outFile; its `totals:` line is the count since the zero.
  const before = new Set(fs.readdirSync(path.dirname(server.outFile)));
  await run("callgrind_control", [`--dump=${label}`, pid]);
  // The target acts on the request when it next runs code: an idle server may leave
  // callgrind_control's wait and write the dump a little later.
  const dump = await newDump(server.outFile, before);
  if (!dump) throw new Error("callgrind wrote no dump");
  const text = fs.readFileSync(path.join(path.dirname(server.outFile), dump), "utf8");
  const totals = /^totals:\s+(\d+)/m.exec(text) ?? /^summary:\s+(\d+)/m.exec(text);
  if (!totals) throw new Error(`no totals in ${dump}`);
  return Number(totals[1]) - (await optimizingCompiler(path.join(path.dirname(server.outFile), dump)));
}

/** The first dump file next to `outFile` that was not in `before`, waited for up to 60 s. */
async function newDump(outFile: string, before: ReadonlySet<string>): Promise<string | undefined> {
  const dir = path.dirname(outFile);
  for (let waited = 0; waited <= 60_000; waited += 200) {
    const dump = fs.readdirSync(dir).find((f) => !before.has(f) && f.startsWith(path.basename(outFile)));
    // A dump is complete once its `totals:` (or `summary:`) line is written.
    if (dump && /^(totals|summary):/m.test(fs.readFileSync(path.join(dir, dump), "utf8"))) return dump;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

/**
 * Instructions of V8's optimizing compiler in a dump. Its jobs run on a background thread
 * (another core, natively), come in bursts long after the warm-up (a function deoptimized
 * and compiled again), and would make rounds differ by half: they are left out of the count.
 */
async function optimizingCompiler(dump: string): Promise<number> {
  const { stdout } = await run("callgrind_annotate", ["--inclusive=yes", "--threshold=100", dump], { maxBuffer: 1 << 28 });
  const line = /^\s*([\d,]+) .*OptimizingCompileDispatcher::CompileTask::RunInternal/m.exec(stdout);
  return line ? Number(line[1].replace(/,/g, "")) : 0;
}

