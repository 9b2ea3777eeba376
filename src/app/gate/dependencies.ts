import type { PriorOrigin } from "../../compare/noise/prior-basis.js";
import type {
  BaselineInfo,
  ComparisonMode,
  OverallVerdict,
  VerdictFile,
} from "../../compare/verdict/verdict-schema.js";
import type { LoadedConfig } from "../../config/load.js";
import type { ArtifactStore } from "../../github/artifact-store.js";
import type { GitHubClient } from "../../github/client.js";
import type { RunRecord } from "../../metrics/run-record.js";
import type { Outbound } from "../../server/outbound.js";
import type { ServerDevice } from "../../server/types.js";
import type { FailOnPolicy } from "./inputs.js";

/**
 * What the action needs from the other parts, as small injected functions: the orchestrator never
 * imports the runner, compare or the server launchers, so it is tested with simple real implementations
 * and wired to the real ones in one place (`createDefaultDependencies`).
 */

export interface MeasureRequest {
  /** Absolute path of the config to run. */
  configPath: string;
  /** That config, loaded once per job (measure does not read the file again). */
  config: LoadedConfig;
  /** Writes `<resultsDir>/<cell>/run-<k>/run.json` (plus logs and scrapes beside it). */
  resultsDir: string;
  /** Subset of the config's cells; null runs them all. */
  cells: string[] | null;
  /** Index of the first run to write; runs already in resultsDir are kept. */
  firstRun: number;
  /** Runs to add per cell; null means the config's repeats.min. */
  runs: number | null;
  /** Per cell, its own first run and number of runs (a cell split over devices); win over firstRun and runs. */
  firstRunByCell?: Readonly<Record<string, number>>;
  runsByCell?: Readonly<Record<string, number>>;
  /** The devices this request's servers run on (runner.devices, app/measure-on-devices.ts); absent: one server at a time. */
  device?: ServerDevice;
  /** `baseline` / `candidate` in interleaved jobs (recorded in run.json `side`); null otherwise. */
  side: "baseline" | "candidate" | null;
  /**
   * A stored baseline being recorded: its capacity searches refine on past their precision to
   * `capacity.max_runs` runs, as a gate's second look would, since a pull request resumes only its own
   * side's search (docs/capacity.md "In the action: the PR job or a scheduled job").
   */
  searchToMaxRuns?: boolean;
  /** Where launchers record live servers, so the post step can stop them if the job is cancelled. */
  serverStateFile: string;
  workingDirectory: string;
  /** The job's output seam (server/outbound.ts): the servers' logs, the run files and the lines it prints go through it. */
  outbound: Outbound;
}

export type Measure = (request: MeasureRequest) => Promise<void>;

export interface CompareRequest {
  baselineDir: string;
  /** Stored mode: earlier baseline sessions of the base branch, for the between-session drift estimate. */
  historyDirs: string[];
  /** Stored mode with main's history (app/gate/history.ts): its runs, and the pooled baseline variances. */
  historyRuns?: readonly RunRecord[];
  baselineVariancePriors?: ReadonlyMap<string, { variance: number; df: number }>;
  /** Where those came from: main's history, dated by its first and last session. */
  baselineVariancePriorOrigin?: PriorOrigin;
  /** This runner's calibration.json, relative to workingDirectory (input calibration). */
  calibrationPath?: string;
  candidateDir: string;
  configPath: string;
  /** The PR's config, loaded once per job: its gate and repeats apply. */
  config: LoadedConfig;
  mode: ComparisonMode;
  baselineInfo: BaselineInfo | null;
  /** null: the config's gate.fail_on. */
  failOn: FailOnPolicy | null;
  /** Where compare writes verdict.json and report.md. */
  outDir: string;
  workingDirectory: string;
  /** The job's output seam: the verdict is cleaned through it before anything is rendered, and written through it. */
  outbound: Outbound;
}

export interface CompareOutcome {
  verdict: OverallVerdict;
  /** 0 passes, 1 fails, under the fail-on policy. */
  exitCode: 0 | 1;
  /** The markdown report (comment and summary body, without our marker). */
  report: string;
  /** When inconclusive: how many runs to add before looking again; null when no more looks are allowed. */
  nextLook: VerdictFile["nextLook"];
  /**
   * The decision as data (verdict.json, cleaned of secrets), from which publishing renders the comment and the job
   * summary with the run's links and the override label; a stand-in compare may leave it out (its
   * `report` is then published as it is).
   */
  verdictFile?: VerdictFile;
}

export type Compare = (request: CompareRequest) => Promise<CompareOutcome>;

/** Stops servers recorded in the state file (post step, after a cancelled or crashed main step). */
export type CleanupServers = (serverStateFile: string) => Promise<void>;

interface ArtifactStoreContext {
  token: string;
  owner: string;
  repo: string;
  runId: number;
  /** The REST API other runs' artifacts are downloaded through. */
  apiUrl?: string;
  /** The job log (retries are told there). */
  log?: (line: string) => void;
}

export interface ActionDependencies {
  measure: Measure;
  compare: Compare;
  cleanupServers: CleanupServers;
  /** A client that retries transient faults and waits out short rate limits (github/client.ts). */
  github: (token: string, apiUrl: string, options?: { log?: (line: string) => void }) => GitHubClient;
  artifacts: (context: ArtifactStoreContext) => ArtifactStore;
  now: () => Date;
  /** Whether the job was told to stop (a cancelled run): its error is then not posted as a comment. */
  interrupted?: () => boolean;
}
