// Bundles the action's entry points and the CLI into dist/ (committed: the runner executes it as is).
import commonjs from "@rollup/plugin-commonjs";
import json from "@rollup/plugin-json";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import typescript from "@rollup/plugin-typescript";

export default {
  input: {
    cli: "src/cli.ts",
    "action/main": "src/action/main.ts",
    "action/post": "src/action/post.ts",
  },
  output: {
    dir: "dist",
    format: "es",
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name].js",
    sourcemap: false,
  },
  // vega-canvas tries `await import("canvas")` (node-canvas, a native build) inside a try and falls back
  // to estimated text widths when it is absent; we never install it, so it stays an external import.
  external: ["canvas"],
  plugins: [
    typescript({ tsconfig: "./tsconfig.build.json" }),
    nodeResolve({ preferBuiltins: true, exportConditions: ["node"] }),
    // undici requires node:sqlite for an optional cache store we never use; Node 20 has no such module.
    commonjs({ ignore: ["node:sqlite"] }),
    json(),
  ],
  onwarn(warning, warn) {
    // Dependencies (the Actions toolkit, Azure SDK) use `this` at module scope and circular imports.
    if (["THIS_IS_UNDEFINED", "CIRCULAR_DEPENDENCY", "INVALID_ANNOTATION"].includes(warning.code ?? ""))
      return;
    warn(warning);
  },
};
