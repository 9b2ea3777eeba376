import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verdictFileSchema } from "../../src/compare/verdict/verdict-schema.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "./helpers.js";

/**
 * Speculative decoding end to end over HTTP: `run` against the simulator's spec-decode model (3 draft
 * tokens a step) for the baseline and against one whose drafter is accepted less often (0.5 instead of
 * 0.8 at temperature 0) for the candidate, then `compare`: run.json carries the server's acceptance
 * counters, verdict.json each side's acceptance and TPOT p95 taken apart, and report.md, comment.md and
 * report.html say that the drafter, not the engine step, made TPOT worse.
 */
const dir = mkdtempSync(join(tmpdir(), "vpg-cli-spec-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (acceptance: number) => `version: 1
server:
  kind: sim
  profile: spec-decode
  set: { spec_decode_acceptance_t0: ${acceptance} }
  startup_timeout_s: 120
model: { name: sim-model }
sampling: { temperature: 0, ignore_eos: true }
cells:
  - name: decode
    endpoint: completions
    dataset: { type: synthetic, input_tokens: 64, output_tokens: 64 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 32 }
    warmup: { requests: 2 }
repeats: { min: 3, max: 3 }
gate:
  # The drafter is the thing under test.
  allowed_differences: [server.command]
# This machine is shared: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 500, max_schedule_lag_ms: 200 }
`;

describe("speculative decoding against the simulator", () => {
  it("run records the acceptance, compare takes TPOT apart and names the drafter", async () => {
    writeFileSync(join(dir, "base.yml"), config(0.8));
    writeFileSync(join(dir, "cand.yml"), config(0.5));
    for (const side of ["base", "cand"]) {
      const run = await cli(["run", "--config", `${side}.yml`, "--out", side, "-q"], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
    }
    const file = runFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "base", "decode", "run-0", "run.json"), "utf8")),
    );
    // The counters over the measured phase: every decode step of a request verified 3 drafts (fewer at
    // its end), each accepted in a chain with 0.8.
    const server = file.server!;
    expect(server.spec_decode_drafts!).toBeGreaterThan(0);
    expect(server.spec_decode_draft_tokens!).toBeLessThanOrEqual(3 * server.spec_decode_drafts!);
    expect(server.spec_decode_acceptance_rate!).toBeGreaterThan(0.55);

    const compare = await cli(
      ["compare", "--baseline", "base", "--candidate", "cand", "--config", "base.yml", "--out", "cmp"],
      { cwd: dir },
    );
    const verdict = verdictFileSchema.parse(JSON.parse(readFileSync(join(dir, "cmp/verdict.json"), "utf8")));
    expect([0, 1], compare.stderr).toContain(compare.code);
    const cell = verdict.specDecode!.find((entry) => entry.cell === "decode")!;
    expect(cell.baseline.acceptanceLength!).toBeGreaterThan(2.5);
    expect(cell.candidate.acceptanceLength!).toBeLessThan(2.1);
    const tpot = cell.decompositions.find((d) => d.metric === "tpot_p95")!;
    const details = JSON.stringify(cell);
    expect(tpot.change.ratio, details).toBeGreaterThan(1.15);
    expect(tpot.acceptanceLength.role, details).toBe("main");
    expect(tpot.acceptanceLength.ci[1], details).toBeLessThan(0.85);
    expect(tpot.explainedBy, details).toBe("acceptance");

    const text = (name: string) => readFileSync(join(dir, "cmp", name), "utf8").replaceAll("\u00a0", " ");
    expect(text("report.md")).toMatch(
      /\*\*decode\*\*: TPOT p95 \+[\d.]+% \([^)]*\): acceptance length −[\d.]+% \([^)]*\) \(the drafter\)/,
    );
    expect(text("report.md")).toContain("Mean acceptance length");
    expect(text("comment.md")).toMatch(/<summary>Speculative decoding: acceptance and the engine step/);
    const html = text("report.html");
    expect(html).toContain("<h2>Speculative decoding</h2>");
    expect(html).toMatch(/<li><strong>decode<\/strong>: TPOT p95 \+[\d.]+% .*\(the drafter\)/);
  }, 240_000);
});
