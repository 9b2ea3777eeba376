import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/json-schema.js";
import { loadConfig, parseConfigText } from "../../src/config/load.js";
import { presetNames, presetText, serverKinds } from "../../src/config/presets.js";
import { renderConfigReference } from "../../src/config/reference.js";
import { summarizeConfig } from "../../src/config/summary.js";
import { depthBuckets } from "../../src/metrics/session-metrics.js";
import { defaultTokenModel } from "../../src/workload/token-model.js";
import { createWorkload } from "../../src/workload/workload.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

describe("presets", () => {
  for (const preset of presetNames) {
    for (const kind of serverKinds) {
      it(`${preset} with a ${kind} server validates`, () => {
        const text = presetText(preset, kind, "./schema.json");
        const { config } = parseConfigText(text, `${preset}.yml`, { env: {} });
        expect(config.server.kind).toBe(kind);
        expect(text.startsWith("# yaml-language-server: $schema=./schema.json\n")).toBe(true);
      });
    }
  }

  for (const preset of presetNames) {
    it(`${preset} with a capacity cell (init --capacity) validates, the cell searched with the preset's SLOs`, () => {
      const text = presetText(preset, "sim", "./schema.json", { capacity: true });
      const { config } = parseConfigText(text, `${preset}.yml`, { env: {} });
      const plain = parseConfigText(presetText(preset, "sim", "./schema.json"), `${preset}.yml`, { env: {} });
      expect(config.cells).toHaveLength(plain.config.cells.length + 1);
      const capacity = config.cells.filter((cell) => cell.capacity !== undefined);
      expect(capacity).toHaveLength(1);
      expect(capacity[0]!.name).toMatch(/-capacity$/);
      expect(Object.keys(capacity[0]!.slo ?? {}).length).toBeGreaterThan(0);
      expect(summarizeConfig(config).warnings.join("\n")).not.toMatch(/capacity/);
    });
  }

  it("agent's sessions hold enough requests at each gated context depth for its p95 to be gated", () => {
    // compare gates a depth bucket's TTFT p95 only when every run has gate.min_requests.p95 requests at
    // that depth: the sessions' seeded turns (the config's seed) must reach it, or the gated metric would
    // be advisory in every run.
    const { config } = parseConfigText(presetText("agent", "sim", "s.json"), "a.yml", { env: {} });
    const gatedDepths = depthBuckets.filter((bucket) =>
      config.gate.metrics.includes(`ttft_p95_depth_${bucket.name}` as never),
    );
    expect(gatedDepths.length).toBeGreaterThan(0);
    for (const cell of config.cells) {
      const workload = createWorkload(cell, { seed: config.seed, tokenModel: defaultTokenModel });
      const count = "requests" in cell.size ? cell.size.requests : 0;
      expect(count, cell.name).toBeGreaterThan(0);
      const sessions = Array.from({ length: count }, (_, index) =>
        workload.sessions!.session(index, "measure"),
      );
      for (const bucket of gatedDepths) {
        const atDepth = sessions.reduce((sum, session) => {
          const turns = session.turns.length;
          const deepest = bucket.to === null ? turns : Math.min(turns, bucket.to);
          return sum + Math.max(0, deepest - bucket.from + 1);
        }, 0);
        expect(atDepth, `${cell.name} at depth ${bucket.name}`).toBeGreaterThanOrEqual(
          config.gate.min_requests.p95,
        );
      }
    }
  });

  it("matrix-18 is 3 task types x fresh/reuse x 3 loads plus a spike", () => {
    const { config } = parseConfigText(presetText("matrix-18", "docker", "s.json"), "m.yml", { env: {} });
    expect(config.cells).toHaveLength(19);
    const grid = config.cells.filter((cell) => cell.name !== "spike");
    expect(new Set(grid.map((cell) => cell.name.split("-")[0]))).toEqual(new Set(["chat", "rag", "longgen"]));
    expect(grid.filter((cell) => cell.prefix === "reuse")).toHaveLength(9);
    expect(new Set(grid.map((cell) => cell.name.split("-")[2]))).toEqual(new Set(["low", "usual", "peak"]));
    const spike = config.cells.find((cell) => cell.name === "spike");
    expect(spike?.load.type).toBe("stages");
  });

  it("the docker starter pins the image by a digest placeholder, with the command that finds the digest", () => {
    const text = presetText("chat", "docker", "s.json");
    const { config } = parseConfigText(text, "c.yml", { env: {} });
    expect(summarizeConfig(config).warnings.join("\n")).not.toMatch(/pinned by tag only/);
    expect(text).toContain(`image: vllm/vllm-openai:v0.11.0@sha256:${"0".repeat(64)}`);
    expect(text).toContain(
      "docker pull vllm/vllm-openai:v0.11.0 && docker inspect --format '{{index .RepoDigests 0}}' vllm/vllm-openai:v0.11.0",
    );
  });

  it("the starter's header links only files and anchors that exist", async () => {
    const text = presetText("chat", "sim", "s.json");
    const links = [...text.matchAll(/([\w./-]+\.md)(#[\w-]+)?/g)].map((m) => ({ file: m[1]!, anchor: m[2] }));
    expect(links.length).toBeGreaterThan(0);
    for (const { file, anchor } of links) {
      const body = await readFile(`${repoRoot}${file}`, "utf8");
      if (!anchor) continue;
      // GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
      const anchors = [...body.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, "")
          .replace(/ /g, "-"),
      );
      expect(anchors, `${file}${anchor}`).toContain(anchor.slice(1));
    }
  });

  it("summaries warn about a tag-only image and estimate GPU time", () => {
    const text = presetText("chat", "docker", "s.json").replace(/@sha256:0+/, "");
    const { config } = parseConfigText(text, "c.yml", { env: {} });
    const summary = summarizeConfig(config);
    expect(summary.warnings.join("\n")).toMatch(/pinned by tag only/);
    const stored = summary.gpuMinutes.find((e) => e.mode === "stored")!;
    expect(stored.minutes.max).toBeGreaterThan(stored.minutes.first);
    expect(stored.usd?.first).toBeCloseTo((stored.minutes.first / 60) * 4, 6);
  });
});

describe("examples", async () => {
  const files = (await readdir(`${repoRoot}examples`)).filter((file) => file.endsWith(".yml"));
  it("has the chat, RAG, batch, matrix, capacity and external-endpoint configs", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "chat.yml",
        "rag.yml",
        "batch.yml",
        "matrix-18.yml",
        "chat-capacity.yml",
        "external-endpoint.yml",
      ]),
    );
  });

  it("examples/chat-capacity.yml is what `init --preset chat --capacity` writes", async () => {
    const committed = await readFile(`${repoRoot}examples/chat-capacity.yml`, "utf8");
    expect(committed).toBe(
      presetText("chat", "docker", "../schema/vllm-perf-gate.schema.json", { capacity: true }),
    );
  });
  for (const file of files) {
    it(`examples/${file} validates`, async () => {
      const loaded = await loadConfig(`${repoRoot}examples/${file}`, { env: {} });
      expect(loaded.config.cells.length).toBeGreaterThan(0);
    });
  }
});

describe("JSON Schema", () => {
  it("the committed schema is the one generated from the zod schema (npm run schema)", async () => {
    const committed = JSON.parse(await readFile(`${repoRoot}schema/vllm-perf-gate.schema.json`, "utf8"));
    expect(committed).toEqual(configJsonSchema());
  });

  it("the committed config reference is generated from the schema (npm run schema)", async () => {
    const committed = await readFile(`${repoRoot}docs/config-reference.md`, "utf8");
    expect(committed).toBe(renderConfigReference());
    expect(committed).toContain("| `cells[].load (type: rate).burstiness` |");
  });

  it("documents fields for editors", () => {
    const schema = configJsonSchema() as { properties: Record<string, { description?: string }> };
    expect(schema.properties.seed?.description).toMatch(/seed/i);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(["server", "model", "cells", "gate", "repeats"]),
    );
  });
});
