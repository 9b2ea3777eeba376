import { createHash } from "node:crypto";
import { cp, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import type { BaselineInfo, ComparisonMode } from "../compare/verdict-schema.js";
import { loadConfig } from "../config/load.js";
import type { ArtifactStore } from "../github/artifact-store.js";
import { readFileAtCommit } from "../github/base-config.js";
import {
  countRuns,
  createBaselineManifest,
  defaultBaselineLimits,
  UntrustedBaselineError,
  validateBaselineDir,
  writeBaselineManifest,
} from "../github/baseline-bundle.js";
import { findBaseline } from "../github/baseline-discovery.js";
import type { GitHubClient } from "../github/client.js";
import type { ActionContext } from "../github/context.js";
import { escapeMarkdown, safeSha } from "../github/escape.js";
import { createRedactor, type Redactor } from "../server/redact.js";
import type { ActionIO } from "./action-io.js";
import { outputNames, stateKeys } from "./action-io.js";
import type { ActionDependencies, CompareOutcome } from "./dependencies.js";
import { guardForkPullRequest } from "./fork-guard.js";
import type { ActionInputs } from "./inputs.js";
import { planRun, type RunPlan } from "./plan.js";
import { applyOverride, decideFailure, publishReport } from "./publish.js";
import { redactEvidence } from "./redact-evidence.js";

/**
 * The action's whole flow, with every outside effect injected: plan -> measure (or download parts) ->
 * record a baseline, or find one and compare (adding runs while inconclusive) -> publish -> upload the
 * evidence, even when something above failed.
 */

export interface ActionResult {
  verdict: string;
  failed: boolean;
  /** Why the step fails, or null. */
  failureMessage: string | null;
  reportPath: string | null;
  resultsDir: string;
  commentUrl: string | null;
  baselineSha: string | null;
}

export interface RunActionOptions {
  /** Scratch directory of this step (results, downloads, report). */
  workDir: string;
  /** GITHUB_WORKSPACE: where the repository is checked out. */
  workspace: string;
  /** Values never to be written to a comment, summary or artifact. */
  secrets: string[];
}

/** Partial artifacts of a matrix are named `<artifact-name>-part-<cells>`. */
export function partArtifactName(artifactName: string, cells: string[]): string {
  const joined = [...cells].sort().join("_");
  const slug = joined.length <= 60 ? joined : createHash("sha256").update(joined).digest("hex").slice(0, 16);
  return `${artifactName}-part-${slug}`;
}

interface Layout {
  evidenceDir: string;
  candidateDir: string;
  baselineSideDir: string;
  compareDir: string;
  downloadDir: string;
  serverStateFile: string;
  reportPath: string;
}

function layoutOf(workDir: string): Layout {
  const evidenceDir = join(workDir, "evidence");
  return {
    evidenceDir,
    candidateDir: join(evidenceDir, "candidate"),
    baselineSideDir: join(evidenceDir, "baseline"),
    compareDir: join(evidenceDir, "compare"),
    downloadDir: join(workDir, "downloaded-baseline"),
    serverStateFile: join(workDir, "servers.json"),
    reportPath: join(evidenceDir, "report.md"),
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function fewestRuns(counts: Map<string, number>, cells: string[] | null): number {
  const relevant = cells ? cells.map((cell) => counts.get(cell) ?? 0) : [...counts.values()];
  return relevant.length === 0 ? 0 : Math.min(...relevant);
}

export async function runAction(
  deps: ActionDependencies,
  inputs: ActionInputs,
  context: ActionContext,
  io: ActionIO,
  options: RunActionOptions,
): Promise<ActionResult> {
  guardForkPullRequest(context, inputs.allowForkPrs);
  const plan = planRun(inputs, context);
  const redactor = createRedactor([inputs.githubToken, ...options.secrets]);
  const workingDirectory = resolve(options.workspace, inputs.workingDirectory);
  const configPath = resolve(workingDirectory, inputs.config);
  const layout = layoutOf(options.workDir);
  await mkdir(layout.candidateDir, { recursive: true });

  const store = deps.artifacts({
    token: inputs.githubToken,
    owner: context.owner,
    repo: context.repo,
    runId: context.runId,
  });
  const evidenceArtifact = plan.partial
    ? partArtifactName(inputs.artifactName, inputs.cells ?? [])
    : inputs.artifactName;
  io.saveState(stateKeys.workDir, options.workDir);
  io.saveState(stateKeys.evidenceDir, layout.evidenceDir);
  io.saveState(stateKeys.evidenceArtifact, evidenceArtifact);
  io.saveState(stateKeys.retentionDays, inputs.retentionDays ? String(inputs.retentionDays) : "");
  io.saveState(stateKeys.serverStateFile, layout.serverStateFile);
  io.setOutput(outputNames.resultsDir, layout.candidateDir);

  let client: GitHubClient | null = null;
  const github = (): GitHubClient => {
    if (!inputs.githubToken)
      throw new Error("input github-token is empty: it is needed to reach the GitHub API");
    client ??= deps.github(inputs.githubToken, context.apiUrl);
    return client;
  };

  let uploaded = false;
  const upload = async (name: string, dir: string) => {
    const redacted = await redactEvidence(dir, redactor);
    if (redacted.length > 0)
      io.warning(`Redacted secret values from ${redacted.length} file(s) before upload.`);
    const artifact = await store.upload(
      name,
      dir,
      inputs.retentionDays ? { retentionDays: inputs.retentionDays } : {},
    );
    uploaded = true;
    io.saveState(stateKeys.uploaded, "true");
    io.info(
      artifact
        ? `Uploaded artifact ${name} (${artifact.sizeBytes} bytes).`
        : `Nothing to upload for ${name}.`,
    );
  };

  const flow = new Flow(
    deps,
    inputs,
    context,
    io,
    plan,
    layout,
    configPath,
    workingDirectory,
    options.workspace,
    redactor,
    github,
    store,
  );
  // Evidence uploads never decide the verdict: a failure is a warning, and the post step retries.
  const uploadEvidence = () =>
    upload(evidenceArtifact, layout.evidenceDir).catch((error: unknown) => {
      io.warning(`Could not upload the evidence (${(error as Error).message}); the post step will retry.`);
    });
  try {
    await flow.collectCandidate();
    if (plan.partial) {
      // A part's upload is its whole output: the aggregate job cannot judge without it.
      await upload(evidenceArtifact, layout.evidenceDir);
      return await flow.partialResult(evidenceArtifact);
    }
    if (plan.role === "baseline") {
      const result = await flow.recordBaseline();
      await upload(inputs.baselineArtifact, layout.candidateDir);
      return result;
    }
    const result = await flow.gate();
    await uploadEvidence();
    return result;
  } finally {
    if (!uploaded && (await exists(layout.evidenceDir))) await uploadEvidence();
  }
}

class Flow {
  constructor(
    private readonly deps: ActionDependencies,
    private readonly inputs: ActionInputs,
    private readonly context: ActionContext,
    private readonly io: ActionIO,
    private readonly plan: RunPlan,
    private readonly layout: Layout,
    private readonly configPath: string,
    private readonly workingDirectory: string,
    private readonly workspace: string,
    private readonly redactor: Redactor,
    private readonly github: () => GitHubClient,
    private readonly store: ArtifactStore,
  ) {}

  private baseConfigPath: string | null = null;
  private comparisonMode: ComparisonMode = "stored";

  private measure(
    configPath: string,
    resultsDir: string,
    firstRun: number,
    runs: number | null,
    cells: string[] | null,
    side: "baseline" | "candidate" | null,
  ) {
    return this.deps.measure({
      configPath,
      resultsDir,
      cells,
      firstRun,
      runs,
      side,
      serverStateFile: this.layout.serverStateFile,
      workingDirectory: this.workingDirectory,
    });
  }

  async collectCandidate(): Promise<void> {
    const { source } = this.plan;
    if (source === "aggregate") return this.collectParts();
    if (source === "interleaved") {
      this.comparisonMode = "interleaved";
      const baseConfig = await this.fetchBaseConfig();
      const { config } = await loadConfig(this.configPath);
      await this.alternate(baseConfig, 0, config.repeats.min, this.inputs.cells);
      return;
    }
    this.io.info(
      `Measuring ${this.inputs.cells ? `cells ${this.inputs.cells.join(", ")}` : "every cell"} of ${this.configPath}.`,
    );
    await this.measure(this.configPath, this.layout.candidateDir, 0, null, this.inputs.cells, null);
  }

  /** A B A B ...: the two sides share the same machine and the same hour, so drift cancels. */
  private async alternate(baseConfig: string, firstRun: number, pairs: number, cells: string[] | null) {
    for (let k = firstRun; k < firstRun + pairs; k++) {
      await this.measure(baseConfig, this.layout.baselineSideDir, k, 1, cells, "baseline");
      await this.measure(this.configPath, this.layout.candidateDir, k, 1, cells, "candidate");
    }
  }

  private async fetchBaseConfig(): Promise<string> {
    const baseSha = this.plan.baseSha;
    if (!baseSha) throw new Error("interleaved runs need the pull request's base commit");
    const repoPath = relative(this.workspace, this.configPath).split("\\").join("/");
    if (repoPath.startsWith(".."))
      throw new Error(`config ${this.configPath} is outside the checked-out repository`);
    const text = await readFileAtCommit(this.github(), {
      owner: this.context.owner,
      repo: this.context.repo,
      path: repoPath,
      ref: baseSha,
    });
    // Next to the PR's config, so relative dataset paths resolve the same way for both sides.
    const path = join(dirname(this.configPath), `.vllm-perf-gate-base-${baseSha.slice(0, 12)}.yml`);
    await writeFile(path, text);
    this.baseConfigPath = path;
    this.io.info(`Base side runs ${repoPath} as of ${baseSha.slice(0, 12)}.`);
    return path;
  }

  private async collectParts(): Promise<void> {
    const store = this.store;
    const prefix = `${this.inputs.artifactName}-part-`;
    const parts = (await store.listCurrentRun()).filter((artifact) => artifact.name.startsWith(prefix));
    if (parts.length === 0) {
      throw new Error(
        `no partial results named ${prefix}* in this workflow run: the matrix jobs need \`cells\` set and the same \`artifact-name\`, and this job needs \`needs:\` on them`,
      );
    }
    const owner = new Map<string, string>();
    for (const part of parts.sort((a, b) => a.name.localeCompare(b.name))) {
      const partDir = join(this.layout.downloadDir, "parts", part.name);
      await store.download(part, partDir);
      for (const side of ["candidate", "baseline"] as const) {
        const from = join(partDir, side);
        if (!(await exists(from))) continue;
        if (side === "baseline") this.comparisonMode = "interleaved";
        const to = side === "candidate" ? this.layout.candidateDir : this.layout.baselineSideDir;
        for (const cell of await readdir(from)) {
          const key = `${side}/${cell}`;
          const previous = owner.get(key);
          if (previous)
            throw new Error(`cell ${cell} was measured by two matrix jobs (${previous} and ${part.name})`);
          owner.set(key, part.name);
          await cp(join(from, cell), join(to, cell), { recursive: true });
        }
      }
    }
    this.io.info(
      `Aggregated ${parts.length} partial result(s): ${parts.map((part) => part.name).join(", ")}.`,
    );
  }

  async partialResult(artifactName: string): Promise<ActionResult> {
    const runs = await countRuns(this.layout.candidateDir);
    await this.io.appendSummary(
      `## vllm-perf-gate: partial results\n\nMeasured ${[...runs].map(([cell, count]) => `\`${cell}\` (${count} runs)`).join(", ")}; uploaded as artifact \`${artifactName}\`. The \`aggregate\` job compares and publishes.\n`,
    );
    this.io.info("This job measured a subset of cells; the aggregate job compares and publishes.");
    this.io.setOutput(outputNames.verdict, "partial");
    return {
      verdict: "partial",
      failed: false,
      failureMessage: null,
      reportPath: null,
      resultsDir: this.layout.candidateDir,
      commentUrl: null,
      baselineSha: null,
    };
  }

  async recordBaseline(): Promise<ActionResult> {
    const cells = [...(await countRuns(this.layout.candidateDir)).keys()];
    if (cells.length === 0) throw new Error(`the run wrote no results under ${this.layout.candidateDir}`);
    const manifest = createBaselineManifest({
      commit: this.context.sha,
      ref: this.context.ref,
      runId: this.context.runId,
      runAttempt: this.context.runAttempt,
      cells,
      now: this.deps.now(),
    });
    await writeBaselineManifest(this.layout.candidateDir, manifest);
    const report = [
      "## vllm-perf-gate: baseline recorded",
      "",
      `Commit \`${manifest.commit.slice(0, 12)}\` on \`${escapeMarkdown(this.context.ref)}\`: ${cells.length} cell(s) (${cells.map((cell) => `\`${cell}\``).join(", ")}).`,
      `Stored as artifact \`${this.inputs.baselineArtifact}\` of run ${this.context.runId}; pull requests against this branch compare with it.`,
      "",
    ].join("\n");
    await writeFile(this.layout.reportPath, report);
    await this.io.appendSummary(this.redactor.redact(report));
    this.io.setOutput(outputNames.verdict, "baseline-recorded");
    this.io.setOutput(outputNames.reportPath, this.layout.reportPath);
    this.io.setOutput(outputNames.baselineSha, manifest.commit);
    return {
      verdict: "baseline-recorded",
      failed: false,
      failureMessage: null,
      reportPath: this.layout.reportPath,
      resultsDir: this.layout.candidateDir,
      commentUrl: null,
      baselineSha: manifest.commit,
    };
  }

  private async acquireBaseline(): Promise<
    { dir: string; info: BaselineInfo; sha: string | null } | { missing: string }
  > {
    if (this.comparisonMode === "interleaved") {
      return {
        dir: this.layout.baselineSideDir,
        info: { commit: this.plan.baseSha ?? undefined, note: "interleaved in this job (A B A B ...)" },
        sha: this.plan.baseSha,
      };
    }
    if (this.inputs.baselinePath) {
      // The user's own files on the runner: trusted, and may be vLLM JSON that compare converts.
      const dir = resolve(this.workingDirectory, this.inputs.baselinePath);
      if (!(await exists(dir))) throw new Error(`input baseline-path: ${dir} does not exist`);
      return { dir, info: { note: `local baseline-path ${this.inputs.baselinePath}` }, sha: null };
    }
    if (!this.plan.baseBranch) {
      return {
        missing: "the base branch is unknown (no pull request and no default branch in the event payload)",
      };
    }
    const search = await findBaseline(this.github(), {
      owner: this.context.owner,
      repo: this.context.repo,
      workflowFile: this.inputs.baselineWorkflow ?? this.context.workflowFile,
      baseBranch: this.plan.baseBranch,
      preferredSha: this.plan.baseSha,
      artifactName: this.inputs.baselineArtifact,
    });
    if (!search.found) {
      const why = [search.problem, ...search.rejected].filter(Boolean).join("; ");
      if (search.problem) this.io.warning(`Baseline search: ${search.problem}`);
      return {
        missing: `no artifact \`${this.inputs.baselineArtifact}\` on \`${this.plan.baseBranch}\`${why ? ` (${why})` : ""}`,
      };
    }
    const found = search.found;
    if (found.artifactSizeBytes > defaultBaselineLimits.maxTotalBytes) {
      throw new UntrustedBaselineError(
        `baseline artifact of run ${found.runId} is ${found.artifactSizeBytes} bytes, over the ${defaultBaselineLimits.maxTotalBytes} allowed`,
      );
    }
    await rm(this.layout.downloadDir, { recursive: true, force: true });
    await this.store.download(
      {
        id: found.artifactId,
        name: this.inputs.baselineArtifact,
        sizeBytes: found.artifactSizeBytes,
        runId: found.runId,
      },
      this.layout.downloadDir,
    );
    const validated = await validateBaselineDir(this.layout.downloadDir);
    if (validated.manifest && validated.manifest.commit !== found.headSha) {
      this.io.warning(
        `The baseline's manifest names commit ${validated.manifest.commit.slice(0, 12)} but its run was for ${found.headSha.slice(0, 12)}; the run's commit is reported.`,
      );
    }
    const runUrl = `${this.context.serverUrl}/${this.context.owner}/${this.context.repo}/actions/runs/${found.runId}`;
    this.io.info(
      `Baseline: run ${found.runId} at ${found.headSha.slice(0, 12)} on ${this.plan.baseBranch}${found.fallbackReason ? ` (fell back: ${found.fallbackReason})` : ""}.`,
    );
    return {
      dir: this.layout.downloadDir,
      info: {
        commit: found.headSha,
        runId: String(found.runId),
        date: found.runCreatedAt,
        ref: this.plan.baseBranch,
        url: runUrl,
        ...(found.fallbackReason ? { note: found.fallbackReason } : {}),
      },
      sha: safeSha(found.headSha),
    };
  }

  private async compare(baselineDir: string, info: BaselineInfo): Promise<CompareOutcome> {
    return this.deps.compare({
      baselineDir,
      candidateDir: this.layout.candidateDir,
      configPath: this.configPath,
      mode: this.comparisonMode,
      baselineInfo: info,
      failOn: this.inputs.failOn,
      outDir: this.layout.compareDir,
      workingDirectory: this.workingDirectory,
    });
  }

  /** Sequential looks: add the runs compare asks for while it cannot decide, up to max-runs. */
  private async compareUntilDecided(baselineDir: string, info: BaselineInfo): Promise<CompareOutcome> {
    let outcome = await this.compare(baselineDir, info);
    const maxRuns = this.inputs.maxRuns ?? Number.POSITIVE_INFINITY;
    for (let look = 0; look < 100 && outcome.verdict === "inconclusive" && outcome.nextLook; look++) {
      const next = outcome.nextLook;
      const cells = next.cells.length > 0 ? next.cells : this.inputs.cells;
      const have = fewestRuns(await countRuns(this.layout.candidateDir), cells);
      const add = Math.min(Math.max(next.addCandidateRuns, next.addBaselineRuns), maxRuns - have);
      if (add <= 0) {
        this.io.info(`Still inconclusive at ${have} runs; max-runs (${this.inputs.maxRuns}) reached.`);
        break;
      }
      this.io.info(
        `Inconclusive (${next.reason}); adding ${add} run(s) per side to ${cells?.join(", ") ?? "every cell"}.`,
      );
      if (this.comparisonMode === "interleaved" && this.baseConfigPath) {
        await this.alternate(this.baseConfigPath, have, add, cells);
      } else {
        await this.measure(this.configPath, this.layout.candidateDir, have, add, cells, null);
      }
      outcome = await this.compare(baselineDir, info);
    }
    return outcome;
  }

  async gate(): Promise<ActionResult> {
    try {
      const baseline = await this.acquireBaseline();
      if ("missing" in baseline) return await this.baselineMissing(baseline.missing);
      const outcome = await this.compareUntilDecided(baseline.dir, baseline.info);
      let failed = decideFailure(outcome, this.inputs.failOn);
      let overrideNote: string | null = null;
      if (failed) {
        const override = await applyOverride(this.github, this.inputs, this.context, this.io);
        if (override) {
          failed = false;
          overrideNote = override;
        }
      }
      const published = await publishReport({
        report: outcome.report,
        overrideNote,
        baseline: baseline.info,
        inputs: this.inputs,
        context: this.context,
        io: this.io,
        github: this.github,
        redactor: this.redactor,
        reportPath: this.layout.reportPath,
      });
      this.io.setOutput(outputNames.verdict, outcome.verdict);
      this.io.setOutput(outputNames.baselineSha, baseline.sha ?? "");
      return {
        verdict: outcome.verdict,
        failed,
        failureMessage: failed
          ? `vllm-perf-gate: ${outcome.verdict} (fail-on: ${this.inputs.failOn ?? "from the config"})`
          : null,
        reportPath: this.layout.reportPath,
        resultsDir: this.layout.candidateDir,
        commentUrl: published.commentUrl,
        baselineSha: baseline.sha,
      };
    } finally {
      if (this.baseConfigPath) await rm(this.baseConfigPath, { force: true });
    }
  }

  private async baselineMissing(reason: string): Promise<ActionResult> {
    const runs = await countRuns(this.layout.candidateDir);
    const report = [
      "## vllm-perf-gate: baseline missing",
      "",
      `Nothing to compare with: ${escapeMarkdown(reason)}.`,
      "",
      `The candidate was measured (${runs.size} cell(s), ${fewestRuns(runs, null)} run(s) each) and its results are uploaded as artifact \`${this.inputs.artifactName}\`. ` +
        `Run this workflow on a push to \`${escapeMarkdown(this.plan.baseBranch ?? "the base branch")}\` to record a baseline; the next run of this pull request compares with it.`,
      "",
    ].join("\n");
    this.io.notice(`vllm-perf-gate: baseline missing (${reason}); passing.`);
    const published = await publishReport({
      report,
      overrideNote: null,
      baseline: null,
      inputs: this.inputs,
      context: this.context,
      io: this.io,
      github: this.github,
      redactor: this.redactor,
      reportPath: this.layout.reportPath,
    });
    this.io.setOutput(outputNames.verdict, "baseline-missing");
    this.io.setOutput(outputNames.baselineSha, "");
    return {
      verdict: "baseline-missing",
      failed: false,
      failureMessage: null,
      reportPath: this.layout.reportPath,
      resultsDir: this.layout.candidateDir,
      commentUrl: published.commentUrl,
      baselineSha: null,
    };
  }
}
