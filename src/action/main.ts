import * as core from "@actions/core";
import { exitWhenFlushed } from "../util/exit.js";
import { runnerIO } from "./action-io.js";
import { createDefaultDependencies } from "./default-dependencies.js";
import { runMainStep } from "./run-from-environment.js";

const result = await runMainStep(createDefaultDependencies(), runnerIO);
if (result.failed) core.setFailed(result.failureMessage ?? `vllm-perf-gate: ${result.verdict}`);
exitWhenFlushed();
