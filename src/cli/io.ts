/** What a CLI command may touch of the outside world; injected so tests run commands in-process. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/**
 * The io of a command that knows its job's secrets (server/secrets.ts): everything it writes to stdout
 * and stderr passes through the redactor first (a progress line or a note may quote a server's text).
 */
export function redactedIo(io: CliIo, redact: (text: string) => string): CliIo {
  const through = (stream: CliIo["stdout"]): CliIo["stdout"] => ({
    write: (text: string) => stream.write(redact(text)),
    ...(stream.isTTY !== undefined ? { isTTY: stream.isTTY } : {}),
  });
  return { ...io, stdout: through(io.stdout), stderr: through(io.stderr) };
}

/** The error, its message redacted (its class kept: it decides the exit code). */
export function redactedError(error: unknown, redact: (text: string) => string): unknown {
  if (error instanceof Error) {
    error.message = redact(error.message);
    if (error.stack) error.stack = redact(error.stack);
  }
  return error;
}
