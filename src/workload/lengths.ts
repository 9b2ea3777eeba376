import type { LengthConfig } from "../config/schema.js";
import type { Rng } from "../util/random.js";

/** Draws one token count from a configured length distribution, clipped to [min, max] and >= 1. */
export function drawLength(length: LengthConfig, rng: Rng): number {
  if (typeof length === "number") return length;
  switch (length.distribution) {
    case "fixed":
      return length.value;
    case "uniform": {
      const low = Math.min(length.min, length.max);
      const high = Math.max(length.min, length.max);
      return rng.int(low, high);
    }
    case "normal":
      return clip(Math.round(length.mean + length.sd * rng.normal()), length.min, length.max);
    case "lognormal":
      return clip(Math.round(length.median * Math.exp(length.sigma * rng.normal())), length.min, length.max);
  }
}

function clip(value: number, min: number, max: number | undefined): number {
  const lower = Math.max(1, min);
  const clipped = Math.max(lower, value);
  return max === undefined ? clipped : Math.min(max, clipped);
}
