import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareResults } from "../../src/app/compare.js";
import type { RunFile } from "../../src/metrics/run-schema.js";
import { summarizeServerMetrics } from "../../src/metrics/server-metrics.js";
import { renderReports } from "../../src/report/markdown.js";
import { renderTerminal } from "../../src/report/terminal.js";
import { baseFingerprint, noisyRuns } from "../compare/fixtures.js";
import { noSecrets } from "../job-outbound.js";
import { vllmResult } from "../metrics/vllm-fixtures.js";
import { mentionsIn, renderGfm, tagSequence } from "./gfm.js";

/**
 * Every string from outside through the escaper of its context: a cell name, a model name, notes and
 * reasons of runs, the baseline's note, and every string field of a `vllm bench serve` result file (its
 * label, model_id, backend, date, tokenizer_id and error strings) hold HTML, a markdown link, an image,
 * an @-mention, a table pipe, a heading and bare URLs. Both forms of the report are rendered as GitHub
 * renders a comment (tests/report/gfm.ts), and compared with the same comparison made of plain names:
 * the same elements in the same order (nothing from the input became an element), no link, image or
 * heading from the input, no mention or reference left for GitHub to notify.
 */

const hostile = (tag: string) =>
  `<img src=https://x.example/${tag}.png> @everyone [click](https://x.example/${tag}) | # ${tag} heading <pre>${tag}</pre> www.x.example #12 **b** \`c\``;

/**
 * The same strings with every mark replaced by a letter: the comparison's structure (the same lengths and
 * spaces, so the same excerpts and folds) without anything to escape.
 */
const plain = (tag: string) => hostile(tag).replace(/[^A-Za-z0-9 ]/g, "x");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "vpg-hostile-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** DIR/cell-0/run-<k>/run.json: the directory is not named after the (hostile) cell. */
async function writeRuns(where: string, runs: readonly RunFile[]): Promise<string> {
  for (const run of runs) {
    const runDir = join(where, "cell-0", `run-${run.run}`);
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, "run.json"), JSON.stringify(run));
  }
  return where;
}

/**
 * A server with a drafter: its acceptance counters over the run (100 draft rounds of 3 tokens, `accepted`
 * of them accepted, a little more each run), so the speculative-decoding section names the cell.
 */
const withDrafter = (run: RunFile, accepted: number): RunFile => {
  const counters = (drafts: number, tokens: number, hits: number) =>
    `vllm:spec_decode_num_drafts_total ${drafts}\nvllm:spec_decode_num_draft_tokens_total ${tokens}\nvllm:spec_decode_num_accepted_tokens_total ${hits}\n`;
  const scrape = (phase: "before" | "after", text: string) =>
    ({ phase, atMs: 0, status: 200, text, error: null }) as const;
  return {
    ...run,
    server: summarizeServerMetrics([
      scrape("before", counters(0, 0, 0)),
      scrape("after", counters(100, 300, accepted + run.run)),
    ]),
  };
};

/** A hostile cell, the candidate's model name and one candidate run's exclusion reason; the baseline's note and ref. */
async function runFileComparison(name: (tag: string) => string, where: string) {
  const withCell = (runs: RunFile[], accepted: number) =>
    runs.map((run) => withDrafter({ ...run, cell: name("cell") }, accepted));
  const base = withCell(noisyRuns(5, { seed: 1 }), 180);
  const cand = withCell(
    noisyRuns(5, {
      seed: 2,
      ttftFactor: 1.6,
      fingerprint: { ...baseFingerprint, model: { ...baseFingerprint.model, name: name("model") } },
    }),
    120,
  );
  cand[0] = {
    ...cand[0]!,
    flags: { ...cand[0]!.flags, clientBound: true, clientBoundReason: name("reason") },
  };
  return compareResults({
    outbound: noSecrets,
    baseline: [await writeRuns(join(dir, where, "base"), base)],
    candidate: [await writeRuns(join(dir, where, "cand"), cand)],
    mode: "interleaved",
    baselineInfo: { note: name("note"), ref: name("ref"), commit: name("commit") },
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

/** `vllm bench serve` files whose every string field is `name(field)`; the candidate's slower. */
async function vllmComparison(name: (tag: string) => string, where: string) {
  const files = async (side: string, factor: number) => {
    const paths: string[] = [];
    for (let i = 0; i < 4; i++) {
      const path = join(dir, `${where}-${side}-${i}.json`);
      await writeFile(
        path,
        JSON.stringify(
          vllmResult({
            label: name("label"),
            model_id: name("model_id"),
            tokenizer_id: name("tokenizer_id"),
            backend: name(`backend-${side}`),
            date: name("date"),
            endpoint_type: name("endpoint_type"),
            p99_ttft_ms: 59.7 * factor * (1 + i / 200),
            output_throughput: 256 / (factor * (1 + i / 200)),
            errors: ["", "", "", name("error")],
            failed: 1,
            completed: 3,
          }),
        ),
      );
      paths.push(path);
    }
    return paths;
  };
  return compareResults({
    outbound: noSecrets,
    baseline: await files("base", 1),
    candidate: await files("cand", 1.5),
    now: new Date("2026-11-30T05:00:00Z"),
  });
}

function expectInert(hostileText: string, plainText: string, where: string) {
  const html = renderGfm(hostileText);
  // Same structure as the plain names give: nothing from the input became an element.
  expect(tagSequence(html), where).toEqual(tagSequence(renderGfm(plainText)));
  expect(html, where).not.toMatch(/<img\b/);
  expect(html, where).not.toMatch(/<a [^>]*href="[^"]*x\.example/);
  expect(html, where).not.toMatch(/<h\d[^>]*>[^<]*heading/);
  expect(mentionsIn(html), where).toEqual([]);
}

describe("outside strings render inert everywhere in the comment and report.md", () => {
  it("a hostile cell name, model name, run note, baseline note and ref", async () => {
    const bad = await runFileComparison(hostile, "runs-hostile");
    const good = await runFileComparison(plain, "runs-plain");
    expect(bad.verdict.verdict).toBe("not-comparable");
    // The hostile strings are there, as text: in the first screen, the folds' summaries and tables.
    expect(bad.commentMarkdown).toContain("@\u200beveryone");
    expect(bad.reportMarkdown).toMatch(/<summary>All metrics: &lt;img/);
    // The speculative-decoding section and its fold name the cell as text too.
    expect(bad.commentMarkdown).toMatch(
      /<summary>Speculative decoding: acceptance and the engine step, taken apart \(&lt;img/,
    );
    expect(bad.reportMarkdown).toContain("### Speculative decoding");
    expectInert(bad.commentMarkdown, good.commentMarkdown, "comment");
    expectInert(bad.reportMarkdown, good.reportMarkdown, "report.md");
    expect(renderTerminal(bad.verdict, { color: false })).not.toMatch(/\u001b/);
  });

  it("every string field of vLLM result files: label, model_id, backend, date, tokenizer_id, errors", async () => {
    const bad = await vllmComparison(hostile, "vllm-hostile");
    const good = await vllmComparison(plain, "vllm-plain");
    expect(bad.verdict.cells.map((cell) => cell.name)).toEqual([hostile("label")]);
    expect(bad.reportMarkdown).toContain("backend");
    expectInert(bad.commentMarkdown, good.commentMarkdown, "comment");
    expectInert(bad.reportMarkdown, good.reportMarkdown, "report.md");
  });

  it("the 'more runs would not settle it' warning names the cell as text", async () => {
    const { verdict } = await runFileComparison(hostile, "runs-settle");
    const open = {
      ...verdict,
      verdict: "inconclusive" as const,
      settle: { runsPerSide: null, addRuns: null, gpuMinutes: null, cells: [hostile("settle")] },
      nextLook: {
        runsPerSide: 10,
        addCandidateRuns: 2,
        addBaselineRuns: 2,
        cells: [hostile("look")],
        reason: `capacity of ${hostile("look")} inconclusive at 5 candidate runs`,
      },
    };
    const plainOpen = {
      ...open,
      settle: { ...open.settle, cells: [plain("settle")] },
      nextLook: {
        ...open.nextLook,
        cells: [plain("look")],
        reason: `capacity of ${plain("look")} inconclusive`,
      },
    };
    const forms = renderReports(open);
    const plainForms = renderReports(plainOpen);
    expect(forms.comment).toMatch(/More runs up to repeats\.max would not settle &lt;img/);
    expectInert(forms.comment, plainForms.comment, "comment");
    expectInert(forms.report, plainForms.report, "report.md");
  });
});
