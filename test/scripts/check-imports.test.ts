import { describe, expect, it } from "vitest";
import {
  checkBenchImports,
  checkImports,
  findImportCycles,
  importSpecifiers,
} from "../../scripts/check-imports.js";

const tree = (files: Record<string, string>) => new Map(Object.entries(files));

describe("the import-direction check", () => {
  it("passes imports down the pipeline and within a folder, and ignores packages", () => {
    const result = checkImports(
      tree({
        "runner/run-once.ts":
          'import { x } from "../workload/workload.js";\nimport { y } from "./dispatch.js";\nimport { z } from "undici";',
        "workload/workload.ts": 'import { InputError } from "../util/errors.js";',
      }),
      [],
      [],
    );
    expect(result).toEqual({ violations: [], unusedAllowances: [], missingIndexModules: [], unplaced: [] });
  });

  it("names the file and the import that runs against the flow, type-only, multi-line and dynamic alike", () => {
    const result = checkImports(
      tree({
        "config/load.ts": 'import { InputError } from "../cli/errors.js";',
        "metrics/vllm-result.ts": 'import type {\n  RunRecord,\n  Other,\n} from "../compare/run-record.js";',
        "server/provider.ts": 'const m = await import("../runner/run-once.js");',
      }),
      [],
    );
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/config/load.ts imports "../cli/errors.js" (src/cli/errors.ts) against the flow: cli (layer 14) is above config (layer 2)',
      'src/metrics/vllm-result.ts imports "../compare/run-record.js" (src/compare/run-record.ts) against the flow: compare (layer 8) is above metrics (layer 7)',
      'src/server/provider.ts imports "../runner/run-once.js" (src/runner/run-once.ts) against the flow: runner (layer 6) is above server (layer 3)',
    ]);
  });

  it("puts the use cases (app/) above github/ and below the entry points that call them", () => {
    const result = checkImports(
      tree({
        "action/main.ts": 'import { runAction } from "../app/gate/orchestrator.js";',
        "cli/commands/compare.ts": 'import { compareResults } from "../../app/compare.js";',
        "app/compare.ts": 'import { renderMarkdown } from "../report/markdown.js";',
        "github/client.ts": 'import { gate } from "../app/gate/gate.js";',
        "compare/index.ts": 'import { renderMarkdown } from "../report/markdown.js";',
      }),
      [],
    );
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/github/client.ts imports "../app/gate/gate.js" (src/app/gate/gate.ts) against the flow: app (layer 12) is above github (layer 10)',
      'src/compare/index.ts imports "../report/markdown.js" (src/report/markdown.ts) against the flow: report (layer 9) is above compare (layer 8)',
    ]);
  });

  it("keeps two folders on one layer apart (server and sim)", () => {
    const result = checkImports(
      tree({ "server/launch.ts": 'import { Engine } from "../sim/engine.js";' }),
      [],
    );
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/server/launch.ts imports "../sim/engine.js" (src/sim/engine.ts) against the flow: server and sim are on the same layer',
    ]);
  });

  it("layers compare/'s subfolders the same way: down from calibration to noise, never up", () => {
    const result = checkImports(
      tree({
        "compare/analyze/drafts.ts":
          'import { a } from "../noise/start-noise.js";\nimport { b } from "../capacity/capacity.js";\nimport { c } from "./cells.js";',
        "compare/noise/start-noise.ts": 'import type { V } from "../verdict/verdict-schema.js";',
        "compare/budget/budget.ts": 'import { h } from "../history/history.js";',
        "compare/index.ts":
          'import { a } from "./analyze/analyze.js";\nimport { k } from "./calibration/calibration.js";',
        "compare/calibration/calibration.ts": 'import { compareRecords } from "../index.js";',
        "compare/widgets/w.ts": 'import { a } from "../analyze/analyze.js";',
      }),
      [],
    );
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/compare/analyze/drafts.ts imports "../capacity/capacity.js" (src/compare/capacity/capacity.ts) against the flow: compare/capacity (layer 5) is above compare/analyze (layer 4)',
      'src/compare/noise/start-noise.ts imports "../verdict/verdict-schema.js" (src/compare/verdict/verdict-schema.ts) against the flow: compare/verdict (layer 1) is above compare/noise (layer 0)',
      'src/compare/budget/budget.ts imports "../history/history.js" (src/compare/history/history.ts) against the flow: compare/budget and compare/history are on the same layer',
      'src/compare/index.ts imports "./calibration/calibration.js" (src/compare/calibration/calibration.ts) against the flow: compare/calibration (layer 7) is above compare/\'s own files (layer 6)',
      'src/compare/widgets/w.ts imports "../analyze/analyze.js" (src/compare/analyze/analyze.ts) against the flow: compare/widgets is on no layer',
    ]);
    expect(result.unplaced).toEqual(["compare/widgets/w.ts"]);
  });

  it("lets a listed exception through and reports an exception no import uses", () => {
    const used = { from: "runner/", to: "metrics/", reason: "test" };
    const stale = { from: "compare/index.ts", to: "report/markdown.ts", reason: "test" };
    const result = checkImports(
      tree({ "runner/run-file.ts": 'import { summarize } from "../metrics/summary.js";' }),
      [used, stale],
    );
    expect(result.violations).toEqual([]);
    expect(result.unusedAllowances).toEqual([stale]);
  });

  it("imports a folder with an index.ts only through it, from other folders; inside it, module by module", () => {
    const result = checkImports(
      tree({
        "sim/index.ts": 'export { Engine } from "./engine.js";',
        "sim/engine.ts": 'import { tokenize } from "./tokenizer.js";',
        "sim/tokenizer.ts": "export const tokenize = 1;",
        "app/virtual-run.ts":
          'import { Engine } from "../sim/index.js";\nimport { tokenize } from "../sim/tokenizer.js";',
        "cli/commands/sim.ts": 'import type { Engine } from "../../sim/engine.js";',
      }),
      [],
      [],
    );
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/app/virtual-run.ts imports "../sim/tokenizer.js" (src/sim/tokenizer.ts) past src/sim/index.ts, the interface of sim/: import it from there',
      'src/cli/commands/sim.ts imports "../../sim/engine.js" (src/sim/engine.ts) past src/sim/index.ts, the interface of sim/: import it from there',
    ]);
  });

  it("lets a listed index module's folder be imported module by module, and reports a listed one that is gone", () => {
    const compare = { folder: "compare", reason: "test" };
    const gone = { folder: "server", reason: "test" };
    const result = checkImports(
      tree({
        "compare/index.ts": "export function compareRecords() {}",
        "compare/load.ts": "export const load = 1;",
        "app/compare.ts":
          'import { load } from "../compare/load.js";\nimport { compareRecords } from "../compare/index.js";',
      }),
      [],
      [compare, gone],
    );
    expect(result.violations).toEqual([]);
    expect(result.missingIndexModules).toEqual([gone]);
  });

  it("reports files on no layer and imports leaving src/", () => {
    const result = checkImports(
      tree({ "widgets/a.ts": 'import data from "../../package.json" with { type: "json" };' }),
      [],
    );
    expect(result.unplaced).toEqual(["widgets/a.ts"]);
    expect(result.violations.map((v) => v.message)).toEqual([
      'src/widgets/a.ts imports "../../package.json", outside src/',
    ]);
  });

  it("reads re-exports and side-effect imports, not code that merely mentions a path", () => {
    expect(
      importSpecifiers(
        'export { a } from "./a.js";\nexport * from "./b.js";\nimport "./c.js";\nconst s = "from \\"./d.js\\"";\n// import { e } from "./e.js"',
      ),
    ).toEqual(["./a.js", "./b.js", "./c.js"]);
  });

  it("keeps test code out of bench/: the kit and src/ may be imported, test/ may not", () => {
    const violations = checkBenchImports(
      tree({
        "drift.ts":
          'import { noisyRuns } from "./kit/run-files.js";\nimport { analyze } from "../src/compare/analyze.js";',
        "kit/run-files.ts": 'import { runFileSchema } from "../../src/metrics/run-schema.js";',
        "timing.ts": 'import { readRequestRecords } from "../test/runner/helpers/records.js";',
        "kit/more.ts": 'export { makeRunFile } from "../../test/compare/fixtures.js";',
      }),
    );
    expect(violations.map((v) => v.message)).toEqual([
      'bench/timing.ts imports "../test/runner/helpers/records.js" (test/runner/helpers/records.js): the benches import no test code (shared helpers go in bench/kit/)',
      'bench/kit/more.ts imports "../../test/compare/fixtures.js" (test/compare/fixtures.js): the benches import no test code (shared helpers go in bench/kit/)',
    ]);
  });

  it("finds import cycles, type-only ones too, each once with its files, and none in a tree without", () => {
    expect(
      findImportCycles(
        tree({
          "workload/workload.ts": 'import { a } from "./kinds/a.js";\nimport type { B } from "./kinds/b.js";',
          "workload/kinds/a.ts": 'import type { Workload } from "../workload.js";',
          "workload/kinds/b.ts": 'import { c } from "./c.js";',
          "workload/kinds/c.ts": 'export type { B } from "./b.js";',
          "config/self.ts": 'import { x } from "./self.js";',
          "util/leaf.ts": "export const leaf = 1;",
        }),
      ),
    ).toEqual([
      ["config/self.ts"],
      ["workload/kinds/a.ts", "workload/workload.ts"],
      ["workload/kinds/b.ts", "workload/kinds/c.ts"],
    ]);
    expect(
      findImportCycles(
        tree({
          "workload/workload.ts":
            'import type { Workload } from "./types.js";\nimport { a } from "./kinds/a.js";',
          "workload/kinds/a.ts": 'import type { Workload } from "../types.js";',
          "workload/types.ts": 'import { leaf } from "../util/leaf.js";',
          "util/leaf.ts": "export const leaf = 1;",
        }),
      ),
    ).toEqual([]);
  });
});
