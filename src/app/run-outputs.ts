import { join } from "node:path";
import type { RunFile } from "../metrics/run-schema.js";
import { toVllmResult } from "../metrics/vllm-result-writer.js";
import type { Measurement } from "../runner/measured-phase.js";
import type { RunOutcome } from "../runner/run-recorder.js";
import { runTelemetry } from "../server/telemetry.js";
import { assembleRunFile } from "./run-file.js";

/** Assembles run.json from the measurement and writes it, and vllm-result.json when asked, through the job's seam. */
export function writeRunOutputs(measurement: Measurement, outcome: RunOutcome): RunFile {
  const { context, workload, plan, runIndex, dir, outbound } = outcome;
  const { cell, config } = context;
  const { records, startedAtEpochMs } = measurement;
  const telemetryRecord = measurement.telemetry;
  const runFile = assembleRunFile({
    context,
    workload,
    plan,
    runIndex,
    ...(outcome.side ? { side: outcome.side } : {}),
    records,
    warmupCount: outcome.warmupCount,
    origin: measurement.origin,
    lastEnd: measurement.lastEnd,
    startedAtEpochMs,
    dispatch: measurement.dispatch,
    eventLoopLagP99Ms: measurement.eventLoopLagP99Ms,
    peakOnSocket: outcome.peakOnSocket,
    scrapes: measurement.scrapes,
    crashReason: outcome.crashReason,
    refusedInARow: outcome.refusedInARow,
    aborted: outcome.aborted,
    notes: outcome.notes,
    prefix: outcome.prefix,
    serverFingerprint: outcome.serverFingerprint,
    serverStart: outcome.serverStart,
    telemetry: telemetryRecord ? runTelemetry(telemetryRecord.summary) : null,
  });
  outbound.writeFileSync(join(dir, "run.json"), `${JSON.stringify(runFile, null, 2)}\n`);
  if (outcome.formats.includes("vllm")) {
    const vllm = toVllmResult(records, runFile, {
      model: config.model.name,
      endpoint: cell.endpoint,
      startedAtMs: startedAtEpochMs,
      burstiness: cell.load.type === "rate" ? cell.load.burstiness : null,
      maxConcurrency: plan.maxConcurrency,
    });
    outbound.writeFileSync(join(dir, "vllm-result.json"), `${JSON.stringify(vllm)}\n`);
  }
  return runFile;
}
