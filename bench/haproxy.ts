/**
 * A round-robin HAProxy in front of Parley nodes on this machine (Debian's `haproxy`), as
 * the README's "Running several nodes" shows it: the mixed-load bench and the cluster tests
 * both run their nodes behind it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { freePort } from "./processes.js";

export interface HaproxyOptions {
  /** One request per connection to the nodes, so successive requests of one client move between them. */
  closeServerConnections?: boolean;
}

/** Starts HAProxy on a free port with its configuration in `dir`; resolves once it accepts connections. */
export async function startHaproxy(ports: readonly number[], dir: string, opts: HaproxyOptions = {}): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const config = [
    "global",
    // Two sockets per long-poll: within the machine's open-file limit.
    "  maxconn 9000",
    "defaults",
    "  mode http",
    "  maxconn 9000",
    "  timeout connect 2s",
    // Above PARLEY_LONG_POLL_SECONDS (50).
    "  timeout client 90s",
    "  timeout server 90s",
    "frontend parley",
    `  bind 127.0.0.1:${port}`,
    "  default_backend nodes",
    "backend nodes",
    "  balance roundrobin",
    ...(opts.closeServerConnections ? ["  option http-server-close"] : []),
    ...ports.map((p, i) => `  server node${i} 127.0.0.1:${p}`),
  ].join("\n");
  const file = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(file, `${config}\n`);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 100; i++) {
    if (await canConnect(port)) return { url: `http://127.0.0.1:${port}`, process: child };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error("haproxy did not start");
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}
