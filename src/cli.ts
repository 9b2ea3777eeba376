#!/usr/bin/env node
import { processIo } from "./cli/io.js";
import { runCli } from "./cli/main.js";
import { stopLaunchedServersOnCrash } from "./server/signals.js";
import { exitWhenFlushed } from "./util/exit.js";

const argv = process.argv.slice(2);
// An uncaught error stops every server this process launched before exiting 1; no exit leaves one running.
stopLaunchedServersOnCrash();
runCli(argv, processIo()).then((code) => {
  process.exitCode = code;
  // `sim` serves until it is signalled; every other command is done here.
  if (argv[0] !== "sim") exitWhenFlushed(code);
});
