/** Command output: stdout only carries results (JSON with --json), so it stays machine-readable. */
export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
