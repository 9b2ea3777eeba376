#!/usr/bin/env node
import { processIo } from "./cli/io.js";
import { runCli } from "./cli/main.js";

const argv = process.argv.slice(2);
runCli(argv, processIo()).then((code) => {
  process.exitCode = code;
  // `sim` serves until it is signalled; every other command is done here. Exit once output is flushed,
  // so that an idle keep-alive socket or a timer left by a library cannot hold a finished CI step.
  if (argv[0] === "sim") return;
  if (process.env.VLLM_PERF_GATE_DEBUG_HANDLES) {
    process.stderr.write(`active resources at exit: ${process.getActiveResourcesInfo().join(", ")}\n`);
  }
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
});
