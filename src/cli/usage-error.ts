/** A mistake in how a command was called: one line on stderr, then the command's usage, exit 2. */
export class UsageError extends Error {}

/** A failure to carry out a well-formed command (no such user, database missing): one line, exit 1. */
export class CommandError extends Error {}
