#!/usr/bin/env -S node --min-semi-space-size=16
/**
 * The `parley` command. Each command lives in src/cli/ and declares its options; this file
 * dispatches, checks the database, and turns every failure into one line (exit 2 for a
 * mistake in the command line, followed by its usage; exit 1 for a failure), never a stack.
 */
import path from "node:path";
import { ConfigError, loadConfig } from "./config.js";
import { ApiError } from "./errors.js";
import { StartupError } from "./server.js";
import { ServerLockedError } from "./server-lock.js";
import { parseCommandArgs } from "./cli/args.js";
import { COMMANDS, findCommand } from "./cli/commands.js";
import type { Command } from "./cli/command.js";
import { announceDatabase, checkDatabaseExists } from "./cli/database.js";
import { commandUsage, globalUsage, packageVersion } from "./cli/help.js";
import { CommandError, UsageError } from "./cli/usage-error.js";

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") return stdout(globalUsage(COMMANDS));
  if (first === "--version" || first === "-v" || first === "version") return stdout(`parley ${packageVersion()}\n`);
  if (first === "help") return help(rest);
  if (first !== undefined && first.startsWith("-")) throw new UsageError(`unknown option '${first}' (give a command first)`);
  const command = findCommand(first ?? "serve");
  if (!command) throw new UsageError(`unknown command '${first}'`);
  return runCommand(command, rest);
}

async function runCommand(command: Command, args: string[]): Promise<number> {
  const parsed = await withUsage(command, async () => parseCommandArgs(command, args));
  if (parsed.help) return stdout(commandUsage(command));
  await withUsage(command, async () => command.check?.(parsed.values, parsed.positionals));
  const config = loadConfig();
  if (command.usesDatabase === false) {
    process.stderr.write(`parley: using the data folder ${path.resolve(config.dataDir)} (PARLEY_DATA_DIR=${config.dataDir})\n`);
  } else {
    announceDatabase(config);
    if (!command.createsDatabase) checkDatabaseExists(config);
  }
  return withUsage(command, () => command.run(config, parsed.values, parsed.positionals));
}

/** A usage mistake found inside a command is reported with that command's usage. */
async function withUsage<T>(command: Command, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UsageError && !(err instanceof CommandUsageError)) throw new CommandUsageError(command, err.message);
    throw err;
  }
}

function help(args: string[]): number {
  if (args.length === 0) return stdout(globalUsage(COMMANDS));
  const command = findCommand(args[0]!);
  if (!command) throw new UsageError(`unknown command '${args[0]}'`);
  return stdout(commandUsage(command));
}

class CommandUsageError extends UsageError {
  constructor(
    readonly command: Command,
    message: string,
  ) {
    super(message);
  }
}

function stdout(text: string): number {
  process.stdout.write(text);
  return 0;
}

/** Failures whose message is meant for the operator as it is. */
const EXPLAINED = [CommandError, ConfigError, StartupError, ServerLockedError, ApiError];

function report(err: unknown): number {
  if (err instanceof UsageError) {
    const usage = err instanceof CommandUsageError ? commandUsage(err.command) : globalUsage(COMMANDS);
    process.stderr.write(`parley: ${err.message}\n${usage}`);
    return 2;
  }
  const e = err as Error;
  if (EXPLAINED.some((k) => err instanceof k)) {
    process.stderr.write(`parley: ${e.message}\n`);
    return 1;
  }
  // Unexpected: still one line, the stack only on request.
  process.stderr.write(`parley: ${e?.message ?? String(err)}${process.env.PARLEY_DEBUG ? `\n${e?.stack}` : " (set PARLEY_DEBUG=1 for details)"}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => process.exit(report(err)),
);
