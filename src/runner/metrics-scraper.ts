import { describeError } from "../client/errors.js";
import { type ControlClient, ControlDeadlineError } from "../client/stream-client.js";
import type { ScheduleClock } from "../util/clock.js";
import type { JsonlAppender } from "./jsonl-appender.js";

/** One sample of the server's /metrics, as scrapes.jsonl holds it (summarised by metrics/server-metrics.ts). */
export interface MetricsScrape {
  phase: "before" | "during" | "after";
  /** ms since the measured phase began (negative before it). */
  atMs: number;
  status: number | null;
  text: string | null;
  error: string | null;
}

/**
 * Scrapes the server's Prometheus text before, periodically during, and after a run. Raw text is kept
 * (written to scrapes.jsonl as it comes) and parsed only after the run, off the measured path. After a
 * scrape misses the control-request deadline, the endpoint is not asked again in this run (each later
 * scrape is recorded as skipped), so a /metrics that never answers costs one deadline, not one per scrape.
 */
export class MetricsScraper {
  readonly scrapes: MetricsScrape[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private gaveUp: string | null = null;

  constructor(
    private readonly control: ControlClient,
    private readonly metricsUrl: string,
    private readonly clock: ScheduleClock,
    private readonly origin: () => number,
    private readonly sink: JsonlAppender | null,
  ) {}

  async scrape(phase: MetricsScrape["phase"]): Promise<MetricsScrape> {
    const atMs = this.clock.now() - this.origin();
    let scrape: MetricsScrape;
    if (this.gaveUp !== null) {
      scrape = { phase, atMs, status: null, text: null, error: `not scraped: ${this.gaveUp}` };
    } else {
      try {
        const response = await this.control.getUrl(this.metricsUrl);
        scrape = { phase, atMs, status: response.status, text: response.text, error: null };
      } catch (error) {
        if (error instanceof ControlDeadlineError)
          this.gaveUp = `an earlier scrape failed (${error.message})`;
        scrape = { phase, atMs, status: null, text: null, error: describeError(error) };
      }
    }
    this.scrapes.push(scrape);
    this.sink?.append(scrape);
    return scrape;
  }

  startPeriodic(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.inFlight || this.gaveUp !== null) return;
      this.inFlight = this.scrape("during").then(() => {
        this.inFlight = null;
      });
    }, intervalMs);
    this.timer.unref();
  }

  async stopPeriodic(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
  }
}
