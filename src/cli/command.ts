/** What every `parley` command declares: its options (validated before it runs) and its work. */
import type { ParseArgsConfig } from "node:util";
import type { Config } from "../config.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;
export type OptionValues = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The arguments part of the usage line, e.g. "--subdomain S [--json]". */
  synopsis: string;
  /** Extra help lines printed by `parley help COMMAND`. */
  details?: string;
  options: OptionSpec;
  /** Options that must be given. */
  required?: readonly string[];
  /** Positional arguments allowed: [min, max]; none by default. */
  positionals?: readonly [number, number];
  /** Whether the command may create a new SQLite database (serve, migrate, create-realm). */
  createsDatabase?: boolean;
  /** Whether the command opens the database at all (outbox does not). */
  usesDatabase?: boolean;
  /** Checks of option values that need no database (run before it is opened). */
  check?(values: OptionValues, positionals: string[]): void;
  run(config: Config, values: OptionValues, positionals: string[]): Promise<number>;
}
