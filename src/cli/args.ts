/**
 * Option parsing for one command: node's parseArgs in strict mode, its errors turned into
 * one-line usage errors (unknown option, missing value), required options and positional
 * counts checked. `--help`/`-h` is accepted by every command.
 */
import { parseArgs } from "node:util";
import type { Command, OptionValues } from "./command.js";
import { UsageError } from "./usage-error.js";

export interface ParsedArgs {
  help: boolean;
  values: OptionValues;
  positionals: string[];
}

export function parseCommandArgs(command: Command, args: string[]): ParsedArgs {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(parseErrorMessage(err as Error & { code?: string }));
  }
  if (parsed.values.help === true) return { help: true, values: {}, positionals: [] };
  const values = parsed.values as OptionValues;
  for (const name of command.required ?? []) {
    if (values[name] === undefined || values[name] === "") throw new UsageError(`${command.name} needs --${name}`);
  }
  const [min, max] = command.positionals ?? [0, 0];
  if (parsed.positionals.length > max) throw new UsageError(`unexpected argument '${parsed.positionals[max]}'`);
  if (parsed.positionals.length < min) throw new UsageError(`${command.name} needs ${min} argument${min === 1 ? "" : "s"}`);
  return { help: false, values, positionals: parsed.positionals };
}

/** node's messages are long and mention "strict:false"; say the same in one short line. */
function parseErrorMessage(err: Error & { code?: string }): string {
  const option = /'(-[^']*?)(?: <value>)?'/.exec(err.message)?.[1];
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option '${option ?? "?"}'`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return err.message.includes("argument missing") ? `option '${option ?? "?"}' needs a value` : `option '${option ?? "?"}' takes no value`;
    default:
      return err.message.split("\n")[0]!;
  }
}

/** A string option as an integer id, or a usage error naming the option. */
export function intOption(values: OptionValues, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a whole number, not '${String(raw)}'`);
  return n;
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}
