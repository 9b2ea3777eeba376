import type { FingerprintDifference } from "../verdict/verdict-schema.js";

/**
 * The one comparability rule: which recorded conditions may differ between a baseline and a candidate.
 *
 * - Informational fields are recorded and shown but never block: the tool build, the runner's name (two
 *   runners of one pool are the same machine type), the device a server ran on (runner.devices measures
 *   both sides of a cell on every device it uses, a crossover, so devices differ between runs by design)
 *   and the whole-config hash (it changes whenever the thing
 *   under test is itself in the config; the conditions it covers are compared field by field instead:
 *   `server.*`, `model.*`, `sampling.*`, `workload.*`, `gpu.*`).
 * - Fields named in `allowed_differences` (or under a group named there) are the thing under test, and so
 *   are the fields that follow from them: a new image has a new digest and vLLM version, new engine
 *   arguments a new command line and cache config.
 * - A field one side did not record at all, when the two sides were recorded by different versions of
 *   the tool (a baseline from before the field existed), is informational too: unknown is not different.
 * - Every other difference makes the runs not comparable, and is reported with its value on each side.
 */
const informationalFields: readonly string[] = ["tool", "runner.name", "runner.device", "configHash"];

/**
 * Fields that earlier builds recorded and this one no longer writes, each with the one value it always
 * had. `datasets` was never filled (always `{}`): a dataset's identity is a condition of its cell, recorded
 * in `workload.dataset` (kind, path template, configured sha256), `workload.datasetSha256` (the bytes read)
 * and `workload.seed`. The diff skips these fields, so a run.json written before still compares with one
 * written now; the history's conditions hash keeps them at that value, so sessions recorded before and
 * after hash alike (compare/history/history.ts `conditionsHash`).
 */
export const retiredFields: Readonly<Record<string, unknown>> = { datasets: {} };

/** Recorded fields that follow from a configured one: allowing the source allows them too. */
const derivedFields: Readonly<Record<string, readonly string[]>> = {
  "server.image": ["server.imageDigest", "server.imageId", "server.vllmVersion", "server.cacheConfig"],
  "server.args": ["server.command", "server.cacheConfig", "server.maxModelLen", "server.servedModels"],
  "server.command": [
    "server.args",
    "server.vllmVersion",
    "server.cacheConfig",
    "server.maxModelLen",
    "server.servedModels",
  ],
};

/**
 * Flattens a fingerprint into dotted paths (`server.image`). Arrays stay whole: an inserted engine
 * argument is one readable difference, not a cascade of shifted indices.
 */
export function flattenFingerprint(
  value: unknown,
  prefix = "",
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out[prefix] = {};
    for (const [key, inner] of entries) flattenFingerprint(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) {
    out[prefix] = value;
  }
  return out;
}

const covers = (rule: string, field: string) => field === rule || field.startsWith(`${rule}.`);

const isRetired = (field: string) => Object.keys(retiredFields).some((rule) => covers(rule, field));

/** `server.args` allows `server.args` and everything below it, and the fields derived from it. */
function isAllowedDifference(field: string, allowed: readonly string[]): boolean {
  const expanded = allowed.flatMap((rule) => [rule, ...(derivedFields[rule] ?? [])]);
  return expanded.some((rule) => covers(rule, field));
}

export function isInformationalField(field: string): boolean {
  return informationalFields.some((rule) => covers(rule, field));
}

/**
 * Engine arguments with a leading positional model written as `--model MODEL`: `vllm serve MODEL` and
 * `vllm serve --model MODEL` serve the same thing (the docker kind passed the model as `--model` before it
 * passed it positionally, so a baseline recorded then still compares).
 */
function comparableEngineArgs(field: string, value: unknown): unknown {
  if (field !== "server.args" || !Array.isArray(value)) return value;
  const [first, ...rest] = value as unknown[];
  return typeof first === "string" && !first.startsWith("-") ? ["--model", first, ...rest] : value;
}

/**
 * Two servers run from an image (`server.image` recorded on both sides) whose images have no repo digest
 * and not both an image ID: which image ran is unknown on at least one side, and an unknown image is never
 * the same image (a local tag can point at different images on the two sides).
 */
function unknownImage(base: Record<string, unknown>, cand: Record<string, unknown>): boolean {
  const fromImages = (base["server.image"] ?? null) !== null && (cand["server.image"] ?? null) !== null;
  const noDigest = (side: Record<string, unknown>) => (side["server.imageDigest"] ?? null) === null;
  const noId = (side: Record<string, unknown>) => (side["server.imageId"] ?? null) === null;
  return fromImages && noDigest(base) && noDigest(cand) && (noId(base) || noId(cand));
}

/** Key-order-insensitive equality of JSON values (a re-ordered map is the same condition). */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : inner,
  );
}

/** Field-by-field differences per cell, merged across cells that differ the same way. */
export function diffFingerprints(
  perCell: readonly { cell: string; baseline: Record<string, unknown>; candidate: Record<string, unknown> }[],
  allowed: readonly string[],
): FingerprintDifference[] {
  const merged = new Map<string, FingerprintDifference>();
  for (const { cell, baseline, candidate } of perCell) {
    const flatBase = flattenFingerprint(baseline);
    const flatCand = flattenFingerprint(candidate);
    const versionsDiffer = canonical(flatBase["tool.version"]) !== canonical(flatCand["tool.version"]);
    const fields = [...new Set([...Object.keys(flatBase), ...Object.keys(flatCand)])].sort();
    for (const field of fields) {
      if (isRetired(field)) continue;
      const b = flatBase[field];
      const c = flatCand[field];
      const same = canonical(comparableEngineArgs(field, b)) === canonical(comparableEngineArgs(field, c));
      if (same && !(field === "server.imageDigest" && unknownImage(flatBase, flatCand))) continue;
      const key = `${field}\u0000${canonical(b)}\u0000${canonical(c)}`;
      const existing = merged.get(key);
      if (existing) existing.cells.push(cell);
      else {
        const recordedByOneVersion = versionsDiffer && (!(field in flatBase) || !(field in flatCand));
        const informational = isInformationalField(field) || recordedByOneVersion;
        merged.set(key, {
          field,
          cells: [cell],
          baseline: b ?? null,
          candidate: c ?? null,
          allowed: informational || isAllowedDifference(field, allowed),
          informational,
        });
      }
    }
  }
  return [...merged.values()];
}

/** `model.revision: "abc" (baseline) vs "def" (candidate)`, for warnings and headlines. */
export function describeDifference(difference: FingerprintDifference, max = 80): string {
  const show = (value: unknown) => {
    const text = value === null || value === undefined ? "not recorded" : JSON.stringify(value);
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  };
  return `${difference.field}: ${show(difference.baseline)} (baseline) vs ${show(difference.candidate)} (candidate)`;
}
