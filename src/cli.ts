#!/usr/bin/env node
import { processIo } from "./cli/io.js";
import { runCli } from "./cli/main.js";

// Long-running commands (sim, run) keep the process alive themselves; the exit code is set, not forced,
// so streams flush and servers close cleanly.
runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
