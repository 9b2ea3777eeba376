import type { FingerprintDifference } from "./verdict-schema.js";

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

/** `server.args` allows `server.args` and everything below it. */
export function isAllowedDifference(field: string, allowed: readonly string[]): boolean {
  return allowed.some((rule) => field === rule || field.startsWith(`${rule}.`));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
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
    const fields = [...new Set([...Object.keys(flatBase), ...Object.keys(flatCand)])].sort();
    for (const field of fields) {
      const b = flatBase[field];
      const c = flatCand[field];
      if (sameValue(b, c)) continue;
      const key = `${field}\u0000${JSON.stringify(b)}\u0000${JSON.stringify(c)}`;
      const existing = merged.get(key);
      if (existing) existing.cells.push(cell);
      else
        merged.set(key, {
          field,
          cells: [cell],
          baseline: b ?? null,
          candidate: c ?? null,
          allowed: isAllowedDifference(field, allowed),
        });
    }
  }
  return [...merged.values()];
}
