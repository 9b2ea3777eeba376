import { exitWhenFlushed } from "../util/exit.js";
import { runnerIO } from "./action-io.js";
import { createDefaultDependencies } from "./default-dependencies.js";
import { runPostStep } from "./run-from-environment.js";

await runPostStep(createDefaultDependencies(), runnerIO);
exitWhenFlushed();
