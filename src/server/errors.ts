import { FailureError } from "../util/errors.js";
import type { Diagnosis, LikelyCause } from "./diagnose.js";

export type ServerFailureStage = "launch" | "readiness" | "probe";

/**
 * A server that would not start (or could not be reached). The message is complete on its own: what failed,
 * the likely cause and the last log lines, already redacted; the CLI prints it and exits 1.
 */
export class ServerStartError extends FailureError {
  readonly stage: ServerFailureStage;
  readonly likelyCause: LikelyCause | undefined;
  readonly lastLogLines: readonly string[];
  readonly logFile: string | undefined;

  constructor(options: {
    summary: string;
    stage: ServerFailureStage;
    diagnosis?: Diagnosis | undefined;
    lastLogLines?: readonly string[];
    logFile?: string | undefined;
  }) {
    super(formatStartFailure(options));
    this.stage = options.stage;
    this.likelyCause = options.diagnosis?.cause;
    this.lastLogLines = options.lastLogLines ?? [];
    this.logFile = options.logFile;
  }
}

function formatStartFailure(options: {
  summary: string;
  diagnosis?: Diagnosis | undefined;
  lastLogLines?: readonly string[];
  logFile?: string | undefined;
}): string {
  const parts = [options.summary];
  if (options.diagnosis)
    parts.push(`Likely cause: ${options.diagnosis.advice} (log: "${options.diagnosis.evidence}").`);
  const lines = options.lastLogLines ?? [];
  if (lines.length > 0)
    parts.push(`Last ${lines.length} log lines:\n${lines.map((line) => `  | ${line}`).join("\n")}`);
  if (options.logFile) parts.push(`Full log: ${options.logFile}`);
  return parts.join("\n");
}
