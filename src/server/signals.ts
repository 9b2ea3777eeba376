/**
 * Stops servers when the job is cancelled. A cancelled GitHub Actions step gets SIGINT, then SIGTERM 7.5 s
 * later, then SIGKILL 2.5 s after that; whatever this cannot stop in time, the post step stops from the
 * state file. Returns a function that removes the handlers.
 */
export function stopServersOnSignals(
  stop: () => Promise<void>,
  options: { signals?: readonly NodeJS.Signals[]; onSignal?: (signal: NodeJS.Signals) => void } = {},
): () => void {
  const signals = options.signals ?? ["SIGINT", "SIGTERM"];
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    options.onSignal?.(signal);
    // A second signal while stopping changes nothing: the stop already under way is the fastest way out.
    if (stopping) return;
    stopping = true;
    void stop()
      .catch(() => {})
      .finally(() => {
        uninstall();
        // Die of the same signal, so the parent sees how the process ended.
        process.kill(process.pid, signal);
      });
  };
  const uninstall = () => {
    for (const signal of signals) process.off(signal, handler);
  };
  for (const signal of signals) process.on(signal, handler);
  return uninstall;
}
