import type { DelayConfig } from "../config/schema.js";
import type { Rng } from "../util/random.js";

/**
 * Draws one wait between two turns (a think time or a tool's latency) from its configured distribution,
 * in milliseconds, never negative and clipped to `max` where the distribution has one.
 */
export function drawDelayMs(delay: DelayConfig, rng: Rng): number {
  if (typeof delay === "number") return delay * 1000;
  switch (delay.distribution) {
    case "fixed":
      return delay.value * 1000;
    case "uniform": {
      const low = Math.min(delay.min, delay.max);
      const high = Math.max(delay.min, delay.max);
      return (low + (high - low) * rng.next()) * 1000;
    }
    case "exponential": {
      // 1 - next() is in (0, 1]: the log stays finite.
      const drawn = -delay.mean * Math.log(1 - rng.next());
      return Math.min(drawn, delay.max ?? Number.POSITIVE_INFINITY) * 1000;
    }
    case "lognormal": {
      const drawn = delay.median * Math.exp(delay.sigma * rng.normal());
      return Math.min(drawn, delay.max ?? Number.POSITIVE_INFINITY) * 1000;
    }
  }
}
