import * as core from "@actions/core";
import { failedVerdict, interruptedFailure, stoppingOnSignalLine } from "../report/status.js";
import { handleInterrupts, stopLaunchedServersOnCrash } from "../server/signals.js";
import { exitWhenFlushed } from "../util/exit.js";
import { runnerIO } from "./action-io.js";
import { createDefaultDependencies } from "./default-dependencies.js";
import { runMainStep } from "./run-from-environment.js";

// A cancelled job gets SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that. The first signal ends the
// measurement (the run in progress is written, marked interrupted) and stops the servers; a second one
// kills them at once; an uncaught error stops them too. The post step stops whatever is still left.
stopLaunchedServersOnCrash();
const interruption = handleInterrupts({
  log: (line) => core.info(line),
  onFirstSignal: (signal) => core.info(stoppingOnSignalLine(signal)),
});
const result = await runMainStep(createDefaultDependencies({ signal: interruption.signal }), runnerIO);
interruption.dispose();
const signal = interruption.received();
if (signal !== null) core.setFailed(interruptedFailure(signal));
else if (result.failed) core.setFailed(result.failureMessage ?? failedVerdict(result.verdict));
exitWhenFlushed(interruption.exitCode() ?? undefined);
