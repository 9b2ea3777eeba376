import { spawn } from "node:child_process";

export interface ExecResult {
  /** null when the process could not be started or was killed by the timeout. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the executable could not be run at all (ENOENT: not installed). */
  readonly spawnError?: NodeJS.ErrnoException;
  readonly timedOut: boolean;
}

/** Runs a short-lived helper (docker CLI, nvidia-smi) to completion and captures its output. */
export function execFileCapture(
  command: string,
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    /** Called with every output line as it arrives (e.g. `docker pull` progress into the server log). */
    onLine?: (line: string) => void;
    /** Called once the process is spawned, with its pid (e.g. to wait for an in-flight `docker run`). */
    onSpawn?: (pid: number | undefined) => void;
  } = {},
): Promise<ExecResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    options.onSpawn?.(child.pid);
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, options.timeoutMs);
    const lineSplitter = () => {
      let pending = "";
      return (chunk: string) => {
        if (!options.onLine) return;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) options.onLine(line);
      };
    };
    const outLines = lineSplitter();
    const errLines = lineSplitter();
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      outLines(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      errLines(chunk);
    });
    const finish = (result: ExecResult) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(result);
    };
    child.once("error", (error: NodeJS.ErrnoException) =>
      finish({ code: null, stdout, stderr, spawnError: error, timedOut }),
    );
    child.once("close", (code) => finish({ code: timedOut ? null : code, stdout, stderr, timedOut }));
  });
}
