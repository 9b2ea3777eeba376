import { r as runMainStep, c as createDefaultDependencies, s as setFailed, i as info, a as runnerIO } from '../chunks/run-from-environment.js';
import { f as failedVerdict, s as stoppingOnSignalLine, i as interruptedFailure } from '../chunks/status.js';
import { s as stopLaunchedServersOnCrash, h as handleInterrupts, e as exitWhenFlushed } from '../chunks/version.js';
import 'node:fs';
import 'node:fs/promises';
import '../chunks/compare.js';
import 'node:path';
import '../chunks/interleaved.js';
import '../chunks/metric-names.js';
import '../chunks/format.js';
import '../chunks/random.js';
import 'node:crypto';
import '../chunks/schemas.js';
import '../chunks/load.js';
import '../chunks/index.js';
import 'process';
import 'buffer';
import 'node:child_process';
import '../chunks/baseline-bundle.js';
import '../chunks/trace-replay.js';
import '../chunks/run-cells.js';
import 'node:os';
import '../chunks/job-outbound.js';
import 'node:url';
import 'node:net';
import 'node:events';
import 'node:perf_hooks';
import 'node:assert';
import 'node:http';
import 'node:stream';
import 'node:querystring';
import 'node:diagnostics_channel';
import 'node:util';
import 'node:buffer';
import 'node:tls';
import 'node:zlib';
import 'node:util/types';
import 'node:worker_threads';
import 'node:async_hooks';
import 'node:console';
import 'node:timers';
import 'node:dns';
import '../chunks/number-words.js';
import '../chunks/run-sweep.js';
import 'os';
import 'fs';
import 'path';
import 'crypto';
import 'stream';
import 'node:module';
import 'node:process';
import 'node:https';
import 'events';
import 'net';
import 'tls';
import 'assert';
import 'tty';
import 'util';
import 'http';
import 'https';
import 'url';
import 'fs/promises';
import 'constants';
import 'node:string_decoder';
import 'zlib';
import 'string_decoder';
import 'node:stream/promises';
import '../chunks/history-inputs.js';
import '../chunks/measure-on-devices.js';
import '../chunks/calibration.js';
import '../chunks/history.js';
import '../chunks/adaptive.js';
import 'child_process';
import 'timers';

// A cancelled job gets SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that. The first signal ends the
// measurement (the run in progress is written, marked interrupted) and stops the servers; a second one
// kills them at once; an uncaught error stops them too. The post step stops whatever is still left.
stopLaunchedServersOnCrash();
const interruption = handleInterrupts({
    log: (line) => info(line),
    onFirstSignal: (signal) => info(stoppingOnSignalLine(signal)),
});
const result = await runMainStep(createDefaultDependencies({ signal: interruption.signal }), runnerIO);
interruption.dispose();
const signal = interruption.received();
if (signal !== null)
    setFailed(interruptedFailure(signal));
else if (result.failed)
    setFailed(result.failureMessage ?? failedVerdict(result.verdict));
exitWhenFlushed(interruption.exitCode() ?? undefined);
