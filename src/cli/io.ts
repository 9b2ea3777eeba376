import type { Outbound } from "../server/outbound.js";

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
 * The io of a command that has built its job's output seam (server/outbound.ts): everything it writes to
 * stdout and stderr leaves through it (a progress line or a note may quote a server's text). Its errors
 * leave through `outbound.error` as the command throws them.
 */
export function throughOutbound(io: CliIo, outbound: Outbound): CliIo {
  const through = (stream: CliIo["stdout"]): CliIo["stdout"] => ({
    write: outbound.through((text) => stream.write(text)),
    ...(stream.isTTY !== undefined ? { isTTY: stream.isTTY } : {}),
  });
  return { ...io, stdout: through(io.stdout), stderr: through(io.stderr) };
}
