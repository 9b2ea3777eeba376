/**
 * Ends a finished entry point once stdout and stderr are flushed. The work is done at this point; an
 * idle keep-alive socket or a library's timer must not hold a CI step open until the job times out.
 */
export function exitWhenFlushed(code: number | undefined = undefined): void {
  const exitCode = code ?? (typeof process.exitCode === "number" ? process.exitCode : 0);
  if (process.env.VLLM_PERF_GATE_DEBUG_HANDLES) {
    process.stderr.write(`active resources at exit: ${process.getActiveResourcesInfo().join(", ")}\n`);
  }
  process.stdout.write("", () => process.stderr.write("", () => process.exit(exitCode)));
}
