import { describe, expect, it } from "vitest";
import {
  type ControlClient,
  ControlDeadlineError,
  controlTimeoutMs,
} from "../../src/client/stream-client.js";
import { MetricsScraper } from "../../src/runner/metrics-scraper.js";
import { systemClock } from "../../src/util/clock.js";

function control(getUrl: ControlClient["getUrl"]): ControlClient {
  const unused = () => Promise.reject(new Error("not used"));
  return { getUrl, get: unused, post: unused, close: async () => {} };
}

describe("MetricsScraper", () => {
  it("asks a /metrics that missed its deadline no more in that run, recording the skipped scrapes", async () => {
    let asked = 0;
    const scraper = new MetricsScraper(
      control(async () => {
        asked++;
        throw new ControlDeadlineError(
          `GET /metrics: no complete answer within ${controlTimeoutMs} ms (the control-request deadline)`,
        );
      }),
      "http://127.0.0.1:1/metrics",
      systemClock,
      () => 0,
      null,
    );
    await scraper.scrape("before");
    scraper.startPeriodic(10);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await scraper.stopPeriodic();
    await scraper.scrape("after");
    expect(asked).toBe(1);
    expect(scraper.scrapes.map((scrape) => scrape.phase)).toEqual(["before", "after"]);
    expect(scraper.scrapes[1]!.error).toMatch(
      /^not scraped: an earlier scrape failed \(GET \/metrics: no complete answer within 10000 ms/,
    );
  });

  it("keeps asking after other failures (a refused connection, an HTTP error)", async () => {
    let asked = 0;
    const scraper = new MetricsScraper(
      control(async () => {
        asked++;
        if (asked === 1) throw new Error("connect ECONNREFUSED");
        return { status: 200, text: "vllm:num_requests_running 1" };
      }),
      "http://127.0.0.1:1/metrics",
      systemClock,
      () => 0,
      null,
    );
    await scraper.scrape("before");
    await scraper.scrape("after");
    expect(asked).toBe(2);
    expect(scraper.scrapes[1]).toMatchObject({ status: 200, error: null });
  });
});
