import { r as runMainStep, c as createDefaultDependencies, s as setFailed, i as info, a as runnerIO } from '../chunks/run-from-environment.js';
import { s as stopLaunchedServersOnCrash, h as handleInterrupts, f as failedVerdict, e as exitWhenFlushed, a as stoppingOnSignalLine, i as interruptedFailure } from '../chunks/adaptive.js';
import 'node:fs/promises';
import 'node:path';
import 'os';
import 'fs';
import 'path';
import 'crypto';
import 'stream';
import 'node:stream';
import 'node:module';
import 'node:url';
import 'buffer';
import 'node:os';
import 'node:util';
import 'node:process';
import 'node:http';
import 'node:https';
import 'node:zlib';
import 'events';
import 'node:buffer';
import 'node:crypto';
import 'net';
import 'tls';
import 'assert';
import 'tty';
import 'util';
import 'http';
import 'https';
import 'url';
import 'node:fs';
import 'fs/promises';
import 'constants';
import 'node:events';
import 'node:string_decoder';
import 'zlib';
import 'node:stream/promises';
import 'node:perf_hooks';
import 'node:child_process';
import 'node:net';
import 'node:assert';
import 'node:querystring';
import 'node:diagnostics_channel';
import 'node:tls';
import 'node:util/types';
import 'node:worker_threads';
import 'node:async_hooks';
import 'node:console';
import 'node:dns';
import 'string_decoder';
import 'child_process';
import 'timers';
import 'process';
import 'node:timers';

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
