/**
 * Speed of `compare` end to end (read files, validate, decide, render) on the largest matrix the
 * guide describes: 18 cells × 10 runs per side × 2,000 requests per run.
 * Usage: npx tsx bench/compare-speed.ts [--repeats 5]
 *
 * Two input kinds: run.json files written by `run` (percentiles already per run), and
 * `vllm bench serve --save-detailed` results whose percentiles compare recomputes from the 2,000
 * per-request TTFTs, latencies and output lengths (plus 8 stream chunks per request for ITL).
 * Figures are medians of the repeats; the target is < 1 s for the run.json path.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareResults } from "../src/app/compare.js";
import { jobOutbound } from "../src/app/job-outbound.js";
import { mulberry32 } from "../src/util/random.js";
import { makeRunFile } from "./kit/run-files.js";

/** The runs write through a job's output seam; a bench plants no secret. */
const noSecrets = jobOutbound({ env: {} });

const cells = 18;
const runsPerSide = 10;
const requests = 2000;

function vllmDetailed(cell: string, speed: number, random: () => number) {
  const ttfts: number[] = [];
  const latencies: number[] = [];
  const itls: number[][] = [];
  for (let i = 0; i < requests; i++) {
    const ttft = 0.12 * speed * Math.exp(0.4 * (random() - 0.5));
    const gaps = Array.from({ length: 8 }, () => 0.02 * speed * (0.5 + random()));
    ttfts.push(ttft);
    itls.push(gaps);
    latencies.push(ttft + 127 * 0.02 * speed * (0.8 + 0.4 * random()));
  }
  return {
    date: "20261130-040000",
    backend: "openai",
    label: cell,
    model_id: "m",
    num_prompts: requests,
    request_rate: 20,
    duration: 100,
    completed: requests,
    failed: 0,
    request_throughput: 20 / speed,
    request_goodput: null,
    output_throughput: 2560 / speed,
    total_token_throughput: 12800 / speed,
    latencies,
    ttfts,
    itls,
    output_lens: Array.from({ length: requests }, () => 128),
    errors: Array.from({ length: requests }, () => ""),
  };
}

async function writeInputs(root: string) {
  const random = mulberry32(7);
  const sides = { baseline: 1, candidate: 1.03 };
  for (const [side, shift] of Object.entries(sides)) {
    for (let c = 0; c < cells; c++) {
      for (let r = 0; r < runsPerSide; r++) {
        const speed = shift * Math.exp(0.03 * (random() - 0.5));
        const dir = join(root, "run-json", side, `cell-${c}`, `run-${r}`);
        await mkdir(dir, { recursive: true });
        await writeFile(
          join(dir, "run.json"),
          JSON.stringify(makeRunFile({ cell: `cell-${c}`, run: r, slowdown: speed, completed: requests })),
        );
        const vllmDir = join(root, "vllm", side);
        await mkdir(vllmDir, { recursive: true });
        await writeFile(
          join(vllmDir, `cell-${c}-run-${r}.json`),
          JSON.stringify(vllmDetailed(`cell-${c}`, speed, random)),
        );
      }
    }
  }
}

async function timeIt(repeats: number, task: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await task();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const repeatsIndex = args.indexOf("--repeats");
  const repeats = repeatsIndex >= 0 ? Number(args[repeatsIndex + 1]) : 5;
  const root = await mkdtemp(join(tmpdir(), "vpg-compare-speed-"));
  try {
    await writeInputs(root);
    const compare = (kind: string) => () =>
      compareResults({
        outbound: noSecrets,
        baseline: [join(root, kind, "baseline")],
        candidate: [join(root, kind, "candidate")],
        mode: "interleaved",
      });
    const sample = await compare("run-json")();
    const runJsonMs = await timeIt(repeats, compare("run-json"));
    const vllmMs = await timeIt(repeats, compare("vllm"));
    console.log(
      `# bench:compare — ${cells} cells × ${runsPerSide} runs/side × ${requests} requests/run, median of ${repeats}`,
    );
    console.log(`| input | median time | vs 1 s target |`);
    console.log(`|---|---|---|`);
    console.log(
      `| run.json (written by run) | ${runJsonMs.toFixed(0)} ms | ${(runJsonMs / 1000).toFixed(2)}× |`,
    );
    console.log(
      `| vllm bench serve --save-detailed (percentiles recomputed) | ${vllmMs.toFixed(0)} ms | ${(vllmMs / 1000).toFixed(2)}× |`,
    );
    console.log(
      `(${sample.verdict.comparisons.length} comparisons, report ${sample.reportMarkdown.length} chars, verdict ${sample.verdict.verdict})`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
