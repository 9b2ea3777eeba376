import { describeError } from "../client/errors.js";
import type { ControlClient } from "../client/stream-client.js";
import type { MetricsScrape } from "../metrics/server-metrics.js";
import type { ScheduleClock } from "../util/clock.js";
import type { JsonlAppender } from "./jsonl-appender.js";

/**
 * Scrapes the server's Prometheus text before, periodically during, and after a run. Raw text is kept
 * (written to scrapes.jsonl as it comes) and parsed only after the run, off the measured path.
 */
export class MetricsScraper {
  readonly scrapes: MetricsScrape[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;

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
    try {
      const response = await this.control.getUrl(this.metricsUrl);
      scrape = { phase, atMs, status: response.status, text: response.text, error: null };
    } catch (error) {
      scrape = { phase, atMs, status: null, text: null, error: describeError(error) };
    }
    this.scrapes.push(scrape);
    this.sink?.append(scrape);
    return scrape;
  }

  startPeriodic(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.inFlight) return;
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
