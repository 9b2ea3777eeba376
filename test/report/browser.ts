import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/**
 * Debian's chromium (installed by .ci/run), driven by playwright-core, which downloads nothing. The
 * browser tests are skipped only off CI when it is absent; in CI a missing browser fails them.
 */
const chromiumPath = "/usr/bin/chromium";
export const haveBrowser = existsSync(chromiumPath);
export const inCi = Boolean(process.env.CI);

/** Headless, with a fresh, empty profile of playwright's own (it refuses --user-data-dir in args). */
export async function launchChromium(): Promise<Browser> {
  if (!haveBrowser) throw new Error(`${chromiumPath} is missing: .ci/run installs Debian's chromium`);
  return chromium.launch({
    executablePath: chromiumPath,
    timeout: 120_000,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
