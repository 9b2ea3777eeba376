import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepLoads } from "../../src/app/sweep.js";
import { curveFileSchema } from "../../src/app/sweep-curve.js";
import { runFileSchema } from "../../src/metrics/run-schema.js";
import { cli } from "../cli/helpers.js";
import { parseXml } from "../report/xml-check.js";
import { type FakeServer, startFakeServer } from "../runner/helpers/fake-openai-server.js";

let server: FakeServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = undefined;
  dir = undefined;
});

/**
 * The fake server started and a temporary directory holding gate.yml (an external server, model m, then
 * `rest`): the `run --sweep` arguments that measure it against the fake.
 */
async function againstFakeServer(rest: string): Promise<{ args: string[]; work: string }> {
  server = await startFakeServer();
  const work = mkdtempSync(join(tmpdir(), "vpg-sweep-"));
  dir = work;
  writeFileSync(
    join(work, "gate.yml"),
    `version: 1\nserver: { kind: external, base_url: "http://127.0.0.1:1" }\nmodel: { name: m }\n${rest}`,
  );
  return {
    args: ["run", "--config", "gate.yml", "--out", "out", "--sweep", "--base-url", server.baseUrl],
    work,
  };
}

/** The accessible labels of a chart's drawn points (one per load and series), up to the colon. */
function points(svg: string): string[] {
  return parseXml(svg)
    .filter((e) => e.attrs["aria-roledescription"] === "point")
    .map((e) => e.attrs["aria-label"]!.split(":")[0]!);
}

/** The accessible labels of a chart's marks of one kind (Vega's roledescription, e.g. "rule"). */
function labelled(svg: string, kind: string): string[] {
  return parseXml(svg)
    .filter(
      (e) => e.attrs["aria-roledescription"] === `${kind} mark` || e.attrs["aria-roledescription"] === kind,
    )
    .map((e) => e.attrs["aria-label"]!);
}

describe("sweepLoads", () => {
  it("lists each load runs times, ascending, a geometric series rounded to 3 digits", () => {
    expect(sweepLoads({ loads: [4, 1, 2, 2], runs: 2 }, false)).toEqual([1, 1, 2, 2, 4, 4]);
    expect(sweepLoads({ from: 1, to: 100, count: 3, runs: 1 }, false)).toEqual([1, 10, 100]);
    expect(sweepLoads({ from: 1, to: 10, count: 4, runs: 1 }, true)).toEqual([1, 2, 5, 10]);
  });
});

describe("run --sweep with a sweep form", () => {
  it("measures each load, records it in run.json and writes the load curve", async () => {
    const { args, work } = await againstFakeServer(`cells:
  - name: sw
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 1 }
    size: { requests: 6 }
    warmup: { requests: 0 }
    sweep: { loads: [1, 3], runs: 2 }
`);
    const result = await cli(args, { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    const cellDir = join(work, "out", "sw");
    const loads = readdirSync(cellDir)
      .filter((name) => name.startsWith("run-"))
      .sort()
      .map((name) => runFileSchema.parse(JSON.parse(readFileSync(join(cellDir, name, "run.json"), "utf8"))))
      .map((run) => [run.run, run.load.targetConcurrency]);
    expect(loads).toEqual([
      [0, 1],
      [1, 1],
      [2, 3],
      [3, 3],
    ]);
    const curve = curveFileSchema.parse(JSON.parse(readFileSync(join(cellDir, "curve.json"), "utf8")));
    expect(curve.dimension).toBe("concurrency");
    expect(curve.points.map((point) => [point.load, point.runs])).toEqual([
      [1, [0, 1]],
      [3, [2, 3]],
    ]);
    expect(curve.points[0]!.errorRate).toBe(0);
    expect(curve.points[1]!.completedPerSecond).toBeGreaterThan(0);
    // Its picture beside curve.json: the same two loads, in requests in flight, no SLO, no capacity.
    const html = readFileSync(join(cellDir, "report.html"), "utf8");
    expect(html).toContain("<h1>vllm-perf-gate: load sweep of cell sw</h1>");
    expect(html).toContain("<th>Concurrency</th>");
    const svg = readFileSync(join(cellDir, "report-charts", "sw-load-completedpersecond.svg"), "utf8");
    expect(points(svg)).toEqual(["measured at load 1.00", "measured at load 3.00"]);
    expect(svg).toContain("load (concurrent requests)");
    expect(result.stderr).toContain(`sw: its charts written to ${join(cellDir, "report.html")}`);
  });
});

describe("run --sweep when its picture cannot be written", () => {
  it("warns and keeps the runs and curve.json (exit 0)", async () => {
    const { args, work } = await againstFakeServer(`cells:
  - name: sw
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: concurrency, concurrency: 1 }
    size: { requests: 3 }
    warmup: { requests: 0 }
    sweep: { loads: [1, 2], runs: 1 }
`);
    // A directory where report.html should go: writing the page fails.
    mkdirSync(join(work, "out", "sw", "report.html"), { recursive: true });
    const result = await cli(args, { cwd: work });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning: sw: report\.html not written \(.*\); the runs and curve\.json are kept/,
    );
    expect(existsSync(join(work, "out", "sw", "curve.json"))).toBe(true);
    expect(existsSync(join(work, "out", "sw", "run-1", "run.json"))).toBe(true);
  });
});

describe("run --sweep with a capacity cell", () => {
  it("stops when every load meets the SLOs, and with --append resumes from the runs already there", async () => {
    const { args, work } = await againstFakeServer(`cells:
  - name: cap
    dataset: { type: synthetic, input_tokens: 8, output_tokens: 4 }
    load: { type: rate, rate: 1 }
    size: { requests: 4 }
    warmup: { requests: 0 }
    slo: { ttft_ms: 60000 }
    capacity: { range: { min: 2, max: 8 }, initial_loads: 3 }
repeats: { max: 10 }
# A shared machine: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000 }
`);
    const first = await cli(args, { cwd: work });
    expect(first.code, first.stderr).toBe(0);
    // 3 loads, then a second run at the highest to confirm: the capacity is above the range.
    const runsIn = () =>
      readdirSync(join(work, "out", "cap")).filter((name) => name.startsWith("run-")).length;
    expect(runsIn(), first.stderr).toBe(4);
    expect(first.stderr).toContain("every load measured meets the SLOs, up to 8 (capacity.range.max)");
    // The search's estimate is the dashed capacity line of its picture, its SLO the green one.
    const ttft = readFileSync(join(work, "out", "cap", "report-charts", "cap-load-ttftms.svg"), "utf8");
    // (At least 8, or 4 when the loaded machine left the client behind at 8/s and that run is flagged.)
    expect(labelled(ttft, "rule")).toEqual([
      "SLO 60,000 ms",
      expect.stringMatching(/^measured capacity at least (4|8)\.00$/),
    ]);
    expect(readFileSync(join(work, "out", "cap", "report.html"), "utf8")).toMatch(
      /Capacity search: every load measured meets the SLOs: capacity at least (4|8)\.00/,
    );
    const again = await cli([...args, "--append"], { cwd: work });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("capacity search resumes from 4 run(s)");
    expect(runsIn()).toBe(4);
  });
});

describe("run --sweep against the simulator", () => {
  it("writes report.html beside curve.json with the load curve, the SLO lines and no capacity point", async () => {
    dir = mkdtempSync(join(tmpdir(), "vpg-sweep-sim-"));
    writeFileSync(
      join(dir, "gate.yml"),
      `version: 1
server:
  kind: sim
  set: { max_num_seqs: 4, step_overhead_ms: 20 }
model: { name: sim-model }
cells:
  - name: knee
    dataset: { type: synthetic, input_tokens: 32, output_tokens: 8 }
    load: { type: rate, rate: 1 }
    size: { requests: 8 }
    warmup: { requests: 1 }
    slo: { ttft_ms: 400, e2el_ms: 2500 }
    sweep: { loads: [4, 16], runs: 2 }
# A shared machine: a late event loop is not what this test is about.
client: { max_event_loop_lag_ms: 1000, max_schedule_lag_ms: 1000 }
`,
    );
    const result = await cli(["run", "--config", "gate.yml", "--out", "out", "--sweep"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const cellDir = join(dir, "out", "knee");
    const curve = curveFileSchema.parse(JSON.parse(readFileSync(join(cellDir, "curve.json"), "utf8")));
    expect(curve.points.map((p) => p.load)).toEqual([4, 16]);
    const html = readFileSync(join(cellDir, "report.html"), "utf8");
    parseXml(html);
    expect(html).toContain("<h1>vllm-perf-gate: load sweep of cell knee</h1>");
    expect(html).toContain("SLO lines (the cell's slo): TTFT p95 ≤ 400 ms, E2E p95 ≤ 2,500 ms.");
    expect(html).not.toMatch(/<script|https?:/i);
    const files = readdirSync(join(cellDir, "report-charts")).sort();
    expect(files).toEqual([
      "knee-load-completedpersecond.svg",
      "knee-load-e2elms.svg",
      "knee-load-goodput.svg",
      "knee-load-outputtokenspersecond.svg",
      "knee-load-ttftms.svg",
    ]);
    for (const file of files) {
      const svg = readFileSync(join(cellDir, "report-charts", file), "utf8");
      // Only usable runs are drawn; on a shared machine one may be flagged, so count what was kept.
      const drawnLoads = new Set(points(svg));
      expect(drawnLoads.size, file).toBeGreaterThanOrEqual(1);
      expect(
        [...drawnLoads].every((label) => /^measured at load (4\.00|16\.0)$/.test(label)),
        file,
      ).toBe(true);
      const rules = labelled(svg, "rule");
      expect(
        rules.some((label) => label.includes("capacity")),
        file,
      ).toBe(false);
      if (file.includes("ttftms")) expect(rules).toEqual(["SLO 400 ms"]);
      else if (file.includes("e2elms")) expect(rules).toEqual(["SLO 2,500 ms"]);
      else expect(rules, file).toEqual([]);
      // The same chart is in the page.
      expect(html).toContain(svg.trim().replace(' xmlns="http://www.w3.org/2000/svg"', ""));
    }
  }, 120_000);
});
