/**
 * Where a variance believed before a comparison's runs came from, and how old it is (docs/compare.md,
 * "Noise known in advance"): the config's published figures, a calibration of this runner, main's history
 * of baseline sessions. The verdict records it per check and level; the report names it with its age.
 */

type PriorBasis = "config" | "calibration" | "history" | "calibration+history";

/** A prior's origin as the inputs give it. */
export interface PriorOrigin {
  source: string;
  basis: PriorBasis;
  /** ISO time it was measured (the newest measurement it holds); null for the config's figures. */
  measuredAt: string | null;
  /** The oldest measurement it holds (a history's first session); absent or null: one measurement. */
  since?: string | null;
}

/** A prior's origin with its age at the comparison. */
export interface PriorDescription {
  basis: PriorBasis;
  source: string;
  /** The day it was measured (YYYY-MM-DD), null for the config's figures. */
  date: string | null;
  since: string | null;
  /** Whole days from `date` to the comparison; null for the config's figures. */
  ageDays: number | null;
  /** Older than gate.noise_prior.max_age_days: still used, and flagged. */
  stale: boolean;
}

/** Whole days from `measuredAt` to `now` (ISO times); null when either is not a time. */
export function priorAgeDays(measuredAt: string | null | undefined, now: string): number | null {
  if (!measuredAt) return null;
  const from = Date.parse(measuredAt);
  const to = Date.parse(now);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return null;
  return Math.max(0, Math.floor((to - from) / 86_400_000));
}

/** The origin at `now`: its date, age and whether it is older than `maxAgeDays`. */
export function describePrior(origin: PriorOrigin, now: string, maxAgeDays: number): PriorDescription {
  const ageDays = priorAgeDays(origin.measuredAt, now);
  return {
    basis: origin.basis,
    source: origin.source,
    date: origin.measuredAt ? origin.measuredAt.slice(0, 10) : null,
    since: origin.since ? origin.since.slice(0, 10) : null,
    ageDays,
    stale: ageDays !== null && ageDays > maxAgeDays,
  };
}

/** The warning for a prior older than the limit, naming the limit. */
export function stalePriorWarning(description: PriorDescription, maxAgeDays: number): string {
  const what = description.basis === "history" ? "main's history" : description.source;
  return `${what} of ${description.date} is ${description.ageDays} days old, older than gate.noise_prior.max_age_days (${maxAgeDays}): its variances are still used (widened where this pull request's runs contradict them), but this runner may have changed since; ${description.basis === "history" ? "record newer baseline sessions on main" : "run `calibrate` again on it"}`;
}
