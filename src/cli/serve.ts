/** `parley serve`: run the server until SIGINT/SIGTERM. */
import { loadConfig } from "../config.js";
import { startServer } from "../server.js";
import { intOption, stringOption } from "./args.js";
import type { Command } from "./command.js";

export const serve: Command = {
  name: "serve",
  summary: "Run the server (the default command)",
  synopsis: "[--port N] [--host H]",
  details: "--port and --host override PORT and HOST. Refuses to start when another server uses the same SQLite data folder.",
  options: { port: { type: "string", short: "p" }, host: { type: "string" } },
  createsDatabase: true,
  check: (values) => void intOption(values, "port"),
  async run(_config, values) {
    const port = intOption(values, "port");
    const host = stringOption(values, "host");
    const config = loadConfig({ ...process.env, ...(port !== undefined ? { PORT: String(port) } : {}), ...(host ? { HOST: host } : {}) });
    const server = await startServer(config);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      server.shutdown(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`parley: shutdown failed: ${(err as Error).message}\n`);
          process.exit(1);
        },
      );
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    return -1;
  },
};
