import { defineConfig } from "vitest/config";

/**
 * The tests of the `e2e` project besides `*.e2e.test.ts`, the browser tests (`*-browser.test.ts`) and
 * the real-daemon tests (`test/server/docker-real/`):
 * each launches a process, waits on real time (deadlines, rates, signals, sampling) or drives the
 * whole pipeline over loopback servers, or spends many CPU-seconds in one simulation. Every entry is
 * listed with its reason in docs/testing.md (test/scripts/testing-docs.test.ts checks both ways).
 * Everything else is the `unit` project (`npm run test:unit`).
 */
export const endToEndTests = [
  // Processes, signals and launchers.
  "test/cli/signals.test.ts",
  "test/action/main-signals.test.ts",
  "test/server/docker.test.ts",
  "test/server/docker-faults.test.ts",
  "test/server/process.test.ts",
  "test/server/devices.test.ts",
  "test/sim/cli.test.ts",
  "test/action/default-dependencies.test.ts",
  "test/scripts/check-newcomer-path.test.ts",
  // The measuring use cases against launched simulators.
  "test/cli/calibrate.test.ts",
  "test/app/measure-readiness.test.ts",
  "test/app/measure-on-devices.test.ts",
  "test/app/measure-capacity-look.test.ts",
  "test/app/sweep.test.ts",
  "test/app/adaptive.test.ts",
  // Real time over loopback servers: rates, deadlines, stalls, sampling, concurrency.
  "test/runner/run-cells.test.ts",
  "test/runner/per-side-lifecycle.test.ts",
  "test/runner/stall-report.test.ts",
  "test/runner/telemetry.test.ts",
  "test/runner/server-starved.test.ts",
  "test/runner/sim-fidelity.test.ts",
  "test/runner/hostile-server.test.ts",
  "test/runner/run-command.test.ts",
  "test/runner/idle-elision.test.ts",
  "test/runner/crash-after-refusals.test.ts",
  "test/client/stream-client.test.ts",
  "test/cli/base-url-api-key.test.ts",
  "test/report/exports.test.ts",
  "test/sim/client.test.ts",
  // Many CPU-seconds in one process.
  "test/bench/sim-capacity.test.ts",
  "test/app/virtual-run.test.ts",
  "test/config/fuzz.test.ts",
  "test/report/html-report.test.ts",
  "test/compare/untrusted-inputs.test.ts",
  "test/config/many-problems.test.ts",
  // A fresh module graph: @actions/github reads the environment when it is first imported.
  "test/github/artifact-store.test.ts",
  "test/github/zip-bomb.test.ts",
] as const;

// The real-daemon tests (a Docker daemon on the machine, or skipped) are all of their folder.
const endToEndPatterns = [
  "test/**/*.e2e.test.ts",
  "test/**/*-browser.test.ts",
  "test/server/docker-real/*.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: end-to-end tests spawn servers, so keep the worker count small.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          // One module graph per worker instead of per file: the unit files import much of src/, and
          // re-importing it for each file more than doubled the project's CPU time. They keep no
          // state between files (no globals, timers or handlers left behind).
          isolate: false,
          exclude: [...endToEndPatterns, ...endToEndTests],
        },
      },
      {
        extends: true,
        test: { name: "e2e", include: [...endToEndPatterns, ...endToEndTests] },
      },
    ],
  },
});
