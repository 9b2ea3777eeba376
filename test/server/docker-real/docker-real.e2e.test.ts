/**
 * The docker kind against a real Docker daemon (see daemon.ts). One test file, so its cases run one after
 * the other: they share the daemon and find their containers by the kind's label.
 */
import "./cli-and-gpus.js";
import "./crash.js";
import "./digest.js";
import "./identity.js";
import "./leftovers.js";
import "./pipeline.js";
import "./signal.js";
