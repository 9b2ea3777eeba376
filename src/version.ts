import packageJson from "../package.json" with { type: "json" };

/** The tool's own version, recorded in every file it writes and in the fingerprint. */
export const toolVersion: string = packageJson.version;
export const toolName = "vllm-perf-gate";
