import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: end-to-end tests spawn servers, so keep the worker count small.
    maxWorkers: 2,
  },
});
