import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrationFileSchema } from "../../src/compare/calibration/calibration.js";
import { cli } from "./helpers.js";

const config = `version: 1
server: { kind: sim, startup_timeout_s: 60 }
model: { name: m }
repeats: { min: 2, max: 4, block: 2 }
# A shared machine: a late event loop or simulator step is not what this test is about (under a full
# suite's load one of the three runs per side was flagged, and calibration.json counted 2 usable runs).
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000, max_server_lateness_ms: 1000 }
cells:
  - name: chat
    dataset: { type: synthetic, input_tokens: 16, output_tokens: 16 }
    load: { type: concurrency, concurrency: 4 }
    size: { requests: 30 }
    warmup: { requests: 2 }
`;

describe("vllm-perf-gate calibrate (simulator)", () => {
  it("measures A and B alternately, writes calibration.json and compare takes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calibrate-cli-"));
    writeFileSync(join(dir, "c.yml"), config);
    const result = await cli(["calibrate", "-c", "c.yml", "-o", "cal", "--runs", "3", "-q"], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/A\/A calibration: 3 runs per side/);
    expect(result.stdout).toMatch(/catches ≥ [−+][\d.]+% at 90% power, A\/A blocked \d+\/20/);
    for (const side of ["a", "b"])
      for (const run of [0, 1, 2])
        expect(existsSync(join(dir, "cal", side, "chat", `run-${run}`, "run.json"))).toBe(true);
    const file = calibrationFileSchema.parse(
      JSON.parse(readFileSync(join(dir, "cal/calibration.json"), "utf8")),
    );
    expect(file.runsPerSide).toBe(3);
    expect(file.overall.aaSplits).toBe(20);
    // Run order alternates: A's first block, then B's, then B again, then A (A B, B A).
    const started = (side: string, run: number) =>
      Date.parse(
        JSON.parse(readFileSync(join(dir, "cal", side, "chat", `run-${run}`, "run.json"), "utf8")).startedAt,
      );
    expect(started("a", 1)).toBeLessThan(started("b", 0));
    expect(started("b", 2)).toBeLessThan(started("a", 2));

    const compared = await cli(
      [
        "compare",
        "--baseline",
        "cal/a",
        "--candidate",
        "cal/b",
        "--config",
        "c.yml",
        "--calibration",
        "cal/calibration.json",
        "--out",
        "cmp",
        "--format",
        "none",
      ],
      { cwd: dir },
    );
    expect(compared.stderr).toBe("");
    expect([0, 1]).toContain(compared.code);
  }, 120_000);

  it("refuses too few runs and a broken calibration file (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calibrate-cli-"));
    writeFileSync(join(dir, "c.yml"), config);
    const few = await cli(["calibrate", "-c", "c.yml", "-o", "cal", "--runs", "1"], { cwd: dir });
    expect(few.code).toBe(2);
    expect(few.stderr).toMatch(/--runs expects 2 to 50 runs per side, got 1/);
    writeFileSync(join(dir, "bad.json"), '{"schemaVersion":1,"kind":"vllm-perf-gate-calibration"}');
    const bad = await cli(["compare", "--baseline", "x", "--candidate", "y", "--calibration", "bad.json"], {
      cwd: dir,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json: field createdAt/);
  });
});
