import type { Alternation } from "../../config/alternation.js";
import type { GateConfig, QualityConfig } from "../../config/schema.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { CostModel } from "../budget/cost.js";
import type { PriorOrigin } from "../noise/prior-basis.js";
import type { BaselineInfo, ComparisonMode } from "../verdict/verdict-schema.js";
import type { FamilyMember } from "./gated-family.js";
import type { PriorSources } from "./priors.js";

/** What a comparison is given: both sides' runs, the gate, the look and the priors measured before it. */
export interface AnalyzeInput {
  baseline: readonly RunRecord[];
  candidate: readonly RunRecord[];
  gate: GateConfig;
  /** `block`: how the runs fall into server starts (repeats.block resolved: config/alternation.ts). */
  repeats: { min: number; max: number; block?: number | Alternation };
  mode: ComparisonMode;
  baselineInfo?: BaselineInfo | null;
  /**
   * Stored mode: runs of earlier baseline sessions of the base branch (each with its `session`), used only
   * to estimate the between-session drift; the baseline side itself is `baseline`.
   */
  history?: readonly RunRecord[];
  /**
   * Stored mode with main's history: per `cell\u0000metric`, the baseline's run-to-run variance of the ln
   * values pooled over the history's sessions (compare/history/history.ts pooledRunVariances), pooled with
   * the baseline's own in the test.
   */
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /**
   * Start-to-start variances of ln(metric) measured on this runner (a calibration, main's history), per
   * `cell\u0000metric`, with their degrees of freedom and what they came from: they replace
   * gate.noise_prior's for those checks (interleaved mode; stored mode's session drift holds the start).
   */
  startVariancePriors?: PriorSources["startVariancePriors"];
  /**
   * Interleaved mode: run-to-run variances of ln(metric) measured on this runner (a calibration), per
   * `cell\u0000metric`, within a start and for a run on its own start, pooled with both sides' own.
   */
  runVariancePriors?: PriorSources["runVariancePriors"];
  /** Where `baselineVariancePriors` came from (main's history, a calibration) and when. */
  baselineVariancePriorOrigin?: PriorOrigin;
  /** ISO time stamped into verdict.json (injected: the core stays deterministic). */
  now: string;
  tool: { name: string; version: string };
  /** Minutes of one cell-run for the GPU-time estimates (the measured run length, else the config's; default 1). */
  runMinutes?: number;
  /** The config's server start cost and lifecycle, for what the next look costs (default: 3 min a start, per cell). */
  cost?: CostModel;
  /** The quality checks' settings (config `quality`); the defaults when absent. */
  quality?: QualityConfig;
  /**
   * Gated checks decided outside `analyze` that join its gated family (the capacity checks,
   * compare/capacity/capacity.ts): their tests, adjusted with the others; `analyzeWithFamily` returns theirs.
   */
  familyExtras?: readonly FamilyMember[];
  /**
   * Each cell's workload family from the config (`family`, or derived from the name: config/families.ts),
   * for the family tests; a cell not in it gets the derived family of its name.
   */
  cellFamilies?: Readonly<Record<string, string>>;
}
