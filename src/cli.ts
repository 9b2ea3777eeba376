#!/usr/bin/env node
import { processIo } from "./cli/io.js";
import { runCli } from "./cli/main.js";
import { exitWhenFlushed } from "./util/exit.js";

const argv = process.argv.slice(2);
runCli(argv, processIo()).then((code) => {
  process.exitCode = code;
  // `sim` serves until it is signalled; every other command is done here.
  if (argv[0] !== "sim") exitWhenFlushed(code);
});
