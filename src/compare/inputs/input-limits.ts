import { configLimits } from "../../config/schema.js";

/**
 * The one definition of how much input the tool reads: the action applies it to downloaded baselines
 * and matrix parts (github/baseline-bundle.ts adds the archive ratio), `compare` applies it to the
 * files it is given (raised with --max-file-mb / --max-total-mb; the other limits are fixed). Documented in docs/action.md
 * ("Limits") and docs/compare.md ("Inputs").
 */
export interface InputLimits {
  /** All files of a baseline (action), or all result files of both sides together (compare). */
  maxTotalBytes: number;
  /** Files (entries) in a baseline; result files per side in compare. */
  maxFiles: number;
  /** One run.json or one `vllm bench serve` result file. */
  maxRunFileBytes: number;
  /**
   * Recorded conditions (fields of the flattened fingerprint) of one run.json: a real run records about
   * a hundred; a forged one with 150,000 would make every comparison and report diff them all.
   */
  maxFingerprintFields: number;
  /** Runs of one cell on one side (after duplicates are dropped): the ceiling of repeats.max. */
  maxRunsPerCell: number;
}

export const mebibyte = 1024 * 1024;

export const defaultInputLimits: Readonly<InputLimits> = Object.freeze({
  maxTotalBytes: 512 * mebibyte,
  maxFiles: 20_000,
  maxRunFileBytes: 16 * mebibyte,
  maxFingerprintFields: 10_000,
  maxRunsPerCell: configLimits.runs,
});
