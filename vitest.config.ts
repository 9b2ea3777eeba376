import { defineConfig } from "vitest/config";

/**
 * A test file's name places it: `*.e2e.test.ts` is the `e2e` project (it launches a process, waits on real
 * time, drives the whole pipeline over loopback servers or a browser, spends many CPU-seconds in one
 * simulation, or needs a fresh module graph; docs/testing.md), every other `*.test.ts` the `unit` project
 * (`npm run test:unit`). There is no list of files to keep in step.
 */
export const endToEndPattern = "test/**/*.e2e.test.ts";

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
          exclude: [endToEndPattern],
        },
      },
      {
        extends: true,
        test: { name: "e2e", include: [endToEndPattern] },
      },
    ],
  },
});
