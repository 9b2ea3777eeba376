/** Exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** The gate failed, or the work could not be done (server never ready, run aborted). */
  failure: 1,
  /** The command line or an input file is wrong; the message says which and why. */
  invalidInput: 2,
} as const;

/** The command line itself is wrong: print the message and the command's usage, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** An input file or value is wrong: print the message (no stack), exit 2. */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** The work failed for a reason the user can act on: print the message (no stack), exit 1. */
export class FailureError extends Error {
  override readonly name = "FailureError";
}
