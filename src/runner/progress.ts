/**
 * Runs have one numbering everywhere: the run index k, from 0, as in the directory `run-<k>`, the
 * `run` field of run.json, the progress lines and the report. A count ("2 of 3") is only ever said as
 * "i of n" next to the name, never as a second run number.
 */
export function runName(run: number): string {
  return `run-${run}`;
}

/** "run-5 (1 of 3)": the run's name, and how far this invocation is through its `runs` runs. */
export function runPosition(run: number, firstRun: number, runs: number): string {
  return `${runName(run)} (${run - firstRun + 1} of ${runs})`;
}

/** What a run reports while it goes; the CLI renders it, tests collect it. */
export interface ProgressEvent {
  cell: string;
  /** The run index (directory `run-<k>`). */
  run: number;
  /** How many runs of this cell this invocation makes. */
  runs: number;
  /** The index of this invocation's first run (after an `--append`, the existing runs); default 0. */
  firstRun?: number;
  phase: "warmup" | "measure";
  done: number;
  /** Planned requests (sessions, for a session dataset), or null for duration-bound runs. */
  total: number | null;
  /** What `done` and `total` count: requests, or the sessions of a session dataset (docs/workloads.md). */
  unit?: "requests" | "sessions";
  errors: number;
  elapsedS: number;
  /** Planned duration for duration-bound runs. */
  plannedS: number | null;
}

export interface ProgressSink {
  update(event: ProgressEvent): void;
  /** A line for the log (run started, finished, flagged). */
  message(text: string): void;
}

export const silentProgress: ProgressSink = { update() {}, message() {} };

function formatEta(event: ProgressEvent, rate: number): string {
  if (event.total !== null && rate > 0)
    return `${Math.max(0, Math.round((event.total - event.done) / rate))}s`;
  if (event.plannedS !== null) return `${Math.max(0, Math.round(event.plannedS - event.elapsedS))}s`;
  return "?";
}

export function formatProgress(event: ProgressEvent): string {
  const rate = event.elapsedS > 0 ? event.done / event.elapsedS : 0;
  const total = event.total === null ? "" : `/${event.total}`;
  const [unit, perSecond] = event.unit === "sessions" ? ["sessions", "sessions/s"] : ["requests", "req/s"];
  return (
    `[${event.cell} ${runPosition(event.run, event.firstRun ?? 0, event.runs)}${event.phase === "warmup" ? " warm-up" : ""}] ` +
    `${event.done}${total} ${unit}  ${rate.toFixed(1)} ${perSecond}  errors ${event.errors}  ETA ${formatEta(event, rate)}`
  );
}

/**
 * A line every `intervalMs` on a plain stream (CI logs); a redrawn bar on a TTY. Rendering is throttled
 * so progress never costs the measured path more than a counter increment.
 */
export function streamProgress(
  stream: { write(text: string): unknown; isTTY?: boolean },
  { intervalMs = 5000, now = () => Date.now() }: { intervalMs?: number; now?: () => number } = {},
): ProgressSink {
  const tty = stream.isTTY === true;
  const throttleMs = tty ? 200 : intervalMs;
  let lastAt = Number.NEGATIVE_INFINITY;
  let barShown = false;
  return {
    update(event) {
      const at = now();
      const final = event.total !== null && event.done >= event.total;
      if (at - lastAt < throttleMs && !final) return;
      lastAt = at;
      const line = formatProgress(event);
      if (tty) {
        const fraction =
          event.total !== null
            ? event.done / Math.max(1, event.total)
            : event.plannedS
              ? event.elapsedS / event.plannedS
              : 0;
        const width = 24;
        const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
        stream.write(`\r\x1b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${line}`);
        barShown = true;
      } else stream.write(`${line}\n`);
    },
    message(text) {
      if (barShown) {
        stream.write("\r\x1b[2K");
        barShown = false;
      }
      stream.write(`${text}\n`);
    },
  };
}
