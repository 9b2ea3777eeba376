import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { measureRequestedRuns } from "../../src/app/measure-requested.js";
import { loadConfig } from "../../src/config/load.js";
import { outboundFor } from "../job-outbound.js";

const work = mkdtempSync(join(tmpdir(), "vpg-measure-capacity-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The capacity cell's config (`maxRuns`: its capacity.max_runs, or the default) and the measure step on it. */
async function setUp(name: string, maxRuns?: number) {
  const configPath = join(work, `${name}.yml`);
  writeFileSync(
    configPath,
    `version: 1
server: { kind: sim, profile: noiseless, set: { max_num_seqs: 2, step_overhead_ms: 10 }, startup_timeout_s: 60 }
model: { name: sim-model }
cells:
  - name: cap
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 8 }
    load: { type: rate, rate: 10 }
    size: { requests: 10 }
    warmup: { requests: 0 }
    slo: { ttft_ms: 80 }
    capacity: { range: { min: 2, max: 60 }, precision: 0.2, initial_loads: 3${maxRuns === undefined ? "" : `, max_runs: ${maxRuns}`} }
repeats: { min: 3, max: 8 }
# A shared machine: a late event loop is not what this test is about. The range's top (60/s, about three
# times what two sequences of 10 ms steps serve) is overloaded, yet slow enough for a loaded client to
# send on time (at 200/s it was flagged client-bound on a loaded machine and the search ended above range).
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000, max_server_lateness_ms: 1000 }
`,
  );
  const config = await loadConfig(configPath, { env: {}, cwd: work });
  const lines: string[] = [];
  const resultsDir = join(work, name);
  const measure = (firstRun: number, runs: number, searchToMaxRuns = false) =>
    measureRequestedRuns(
      {
        configPath,
        config,
        outbound: outboundFor({}, [config]),
        resultsDir,
        cells: ["cap"],
        firstRun,
        runs,
        side: null,
        serverStateFile: join(work, `${name}-state.json`),
        workingDirectory: work,
        ...(searchToMaxRuns ? { searchToMaxRuns } : {}),
      },
      {
        env: { ...process.env },
        progress: { update() {}, message: (line) => lines.push(line) },
        warn() {},
      },
    );
  const runsIn = () =>
    readdirSync(join(resultsDir, "cap")).filter((entry) => entry.startsWith("run-")).length;
  return { measure, runsIn, lines };
}

describe("the action's measure step for a capacity cell", () => {
  it("resumes a finished search at a later look and refines it on to the look's runs", async () => {
    const { measure, runsIn, lines } = await setUp("look");
    await measure(0, 3);
    const searched = runsIn();
    const log = lines.join("\n");
    expect(log, log).toMatch(/capacity search (done \(precise\)|stopped at repeats\.max)/);
    // A later look asks for 4 more runs per side (app/adaptive.ts: firstRun = the runs there, runs = 4):
    // the search refines on past its stop, in rounds of up to four, to exactly that many.
    await measure(searched, 4);
    expect(runsIn(), lines.join("\n")).toBe(searched + 4);
    expect(lines.join("\n")).toContain(`capacity search resumes from ${searched} run(s)`);
  }, 120_000);

  it("searches a stored baseline being recorded on to capacity.max_runs, past its precision", async () => {
    // A precision of 20% stops this search well before repeats.max (8) on its own (the test above); a
    // stored baseline goes on to max_runs (10), since a pull request resumes only its own side's search.
    const { measure, runsIn, lines } = await setUp("baseline", 10);
    await measure(0, 10, true);
    expect(runsIn(), lines.join("\n")).toBe(10);
    expect(lines.join("\n")).toContain("capacity search stopped at capacity.max_runs, 10 runs");
  }, 120_000);
});
