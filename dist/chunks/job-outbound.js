import { aj as renderedForms } from './format.js';
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { stat, readFile, writeFile } from 'node:fs/promises';
import { F as FailureError, g as terminateGroup, d as dockerExec, o as describeDockerCli, p as dockerSpawn, j as containerLabel, q as labelledContainersOnPort, r as dockerCliOf } from './version.js';
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Values shorter than this are not searched for in free text: "8000", "true" or "main" would match
 * ordinary output (ports, flags, branch names) and destroy it. Such a value is still never printed by
 * `validate` or recorded in a fingerprint, which show its template; it is only not scrubbed from text
 * (server output, error messages) that happens to contain it. Documented in the README (Secrets).
 */
const minimumSecretLength = 8;
/**
 * The seam of a job whose secrets are `secrets`; `options.forms` adds the encodings the job's reports give
 * a value (their markdown and HTML escaping), for the last pass over what was already rendered.
 */
function createOutbound(secrets, options = {}) {
    // Also for callers without the compiler's check: a job without its secret set must not start.
    if (!secrets || !Array.isArray(secrets.named)) {
        throw new TypeError("a job's output needs the job's secret set (server/secrets.ts collectJobSecrets)");
    }
    const hidden = replacer(secrets.named.map((entry) => ({ value: entry.value, mark: "***" })), options.forms);
    const referenced = replacer(secrets.named.map((entry) => ({ value: entry.value, mark: `\${${entry.name}}` })));
    return {
        secrets,
        clean: (value) => everyString(value, hidden),
        through: (write) => (text) => write(hidden.replace(text)),
        writeFile: (path, text) => writeFile(path, hidden.replace(text)),
        writeFileSync: (path, text) => writeFileSync(path, hidden.replace(text)),
        async cleanFile(path, maxBytes) {
            if (hidden.empty || (await stat(path)).size > maxBytes)
                return false;
            const bytes = await readFile(path);
            if (bytes.includes(0))
                return false; // binary
            const text = bytes.toString("utf8");
            const cleaned = hidden.replace(text);
            if (cleaned === text)
                return false;
            await writeFile(path, cleaned);
            return true;
        },
        error(error) {
            if (error instanceof Error) {
                error.message = hidden.replace(error.message);
                if (error.stack)
                    error.stack = hidden.replace(error.stack);
            }
            return error;
        },
        references: (value) => everyString(value, referenced),
    };
}
/** What a value looks like as JSON string content and URL-encoded: how files and URLs hold it. */
function builtInForms(value) {
    return [JSON.stringify(value).slice(1, -1), encodeURIComponent(value)];
}
/** Replaces each value (of at least minimumSecretLength characters) and its forms by its mark. */
function replacer(secrets, forms) {
    const marks = new Map();
    const distinct = new Set();
    for (const { value, mark } of secrets) {
        if (value.length < minimumSecretLength || distinct.has(value))
            continue;
        distinct.add(value);
        for (const form of [value, ...builtInForms(value), ...(forms?.(value) ?? [])]) {
            if (!marks.has(form))
                marks.set(form, mark);
        }
    }
    // Longest first, so a secret that contains another (or a form that contains the value) is replaced whole.
    const replacements = [...marks].sort(([a], [b]) => b.length - a.length);
    return {
        empty: distinct.size === 0,
        replace(text) {
            let result = text;
            for (const [form, mark] of replacements) {
                if (result.includes(form))
                    result = result.split(form).join(mark);
            }
            return result;
        },
    };
}
/** Every string in a JSON-like value replaced (keys too: a record may be keyed by outside text). */
function everyString(value, replacer) {
    if (replacer.empty)
        return value;
    const visit = (node) => {
        if (typeof node === "string")
            return replacer.replace(node);
        if (Array.isArray(node))
            return node.map(visit);
        if (node !== null && typeof node === "object") {
            return Object.fromEntries(Object.entries(node).map(([key, inner]) => [replacer.replace(key), visit(inner)]));
        }
        return node;
    };
    return visit(value);
}

const causePatterns = [
    {
        cause: "missing-hf-token",
        pattern: /GatedRepoError|Cannot access gated repo|Access to model .* is restricted|401 Client Error|You are trying to access a gated repo|Invalid user token|must be authenticated/i,
        advice: "the model is gated or private: pass a Hugging Face token (server.env: [HF_TOKEN]) that has access to it",
    },
    {
        cause: "model-not-found",
        pattern: /RepositoryNotFoundError|Repository Not Found|is not a local folder and is not a valid model identifier|404 Client Error|RevisionNotFoundError|Invalid repository ID|does not appear to have a file named config\.json/i,
        advice: "the model (or its revision) was not found: check model.name, model.source and model.revision",
    },
    {
        cause: "kv-cache-too-small",
        pattern: /larger than the maximum number of tokens that can be stored in KV cache|KV cache is needed, which is larger than the available KV cache memory|No available memory for the cache blocks/i,
        advice: "the KV cache does not fit max_model_len: lower --max-model-len or raise --gpu-memory-utilization",
    },
    {
        cause: "gpu-out-of-memory",
        pattern: /CUDA out of memory|OutOfMemoryError|out of memory|Free memory on device .* is less than desired GPU memory utilization/i,
        advice: "GPU out of memory: another process may hold the GPU (check nvidia-smi), or lower --gpu-memory-utilization / --max-model-len",
    },
    {
        cause: "no-gpu-runtime",
        pattern: /could not select device driver .* with capabilities: \[\[gpu\]\]|nvidia-container-cli|unknown or invalid runtime name: nvidia/i,
        advice: "docker cannot give the container a GPU: install and configure the NVIDIA Container Toolkit on the runner",
    },
    {
        cause: "cuda-error",
        pattern: /CUDA error|CUDA driver version is insufficient|no CUDA-capable device|NVIDIA driver on your system is too old|cudaErrorNoDevice|NCCL error|Found no NVIDIA driver/i,
        advice: "a CUDA error: check the driver version against the image's CUDA version and that the GPU is visible",
    },
    {
        cause: "port-in-use",
        pattern: /address already in use|EADDRINUSE|port is already allocated|\[Errno 98\]/i,
        advice: "the port is already in use: stop the other server or pick another server.port",
    },
    {
        cause: "image-not-found",
        pattern: /pull access denied|manifest unknown|repository does not exist|not found: manifest|No such image/i,
        advice: "the image could not be pulled: check server.image (and docker login for a private registry)",
    },
    {
        // The daemon's own words when it cannot reach a registry (docker 20.10 to 28).
        cause: "registry-unreachable",
        pattern: /dial tcp .*(connection refused|i\/o timeout|no route to host|network is unreachable)|lookup .* no such host|TLS handshake timeout|Client\.Timeout exceeded while awaiting headers|request canceled while waiting for connection/i,
        advice: "the daemon cannot reach the image's registry (network, proxy or DNS): pull the image beforehand (docker pull, docker load), or use a registry mirror this machine reaches",
    },
];
function diagnoseLog(lines) {
    // The latest lines carry the fatal error; earlier ones may hold recovered warnings.
    for (let index = lines.length - 1; index >= 0; index--) {
        const line = lines[index];
        for (const { cause, pattern, advice } of causePatterns) {
            if (pattern.test(line))
                return { cause, advice, evidence: line.trim() };
        }
    }
    return undefined;
}

/**
 * A server that would not start (or could not be reached). The message is complete on its own: what failed,
 * the likely cause and the last log lines, already redacted; the CLI prints it and exits 1.
 */
class ServerStartError extends FailureError {
    stage;
    likelyCause;
    lastLogLines;
    logFile;
    constructor(options) {
        super(formatStartFailure(options));
        this.stage = options.stage;
        this.likelyCause = options.diagnosis?.cause;
        this.lastLogLines = options.lastLogLines ?? [];
        this.logFile = options.logFile;
    }
}
function formatStartFailure(options) {
    const parts = [options.summary];
    if (options.diagnosis)
        parts.push(`Likely cause: ${options.diagnosis.advice} (log: "${options.diagnosis.evidence}").`);
    const lines = options.lastLogLines ?? [];
    if (lines.length > 0)
        parts.push(`Last ${lines.length} log lines:\n${lines.map((line) => `  | ${line}`).join("\n")}`);
    if (options.logFile)
        parts.push(`Full log: ${options.logFile}`);
    return parts.join("\n");
}

// What the kinds that start a process of their own (kinds/command.ts, kinds/sim.ts) hand it.
/** vLLM registers POST /reset_prefix_cache only in dev mode; a server shared by a cell's runs needs it. */
function devModeEnv(devMode) {
    return devMode ? { VLLM_SERVER_DEV_MODE: "1" } : {};
}
/**
 * The devices of one server (runner.devices): the GPUs it sees (CUDA_VISIBLE_DEVICES, as CUDA programs
 * read it) and, in the command's arguments, `{device}` and `{port}` (each device's server on its own port).
 */
function deviceEnv(device) {
    return device ? { CUDA_VISIBLE_DEVICES: device.spec } : {};
}
function withDevice(argv, device, port) {
    return argv.map((arg) => arg.replaceAll("{port}", String(port)).replaceAll("{device}", device?.spec ?? ""));
}

/**
 * Starts a server command as the leader of its own process group (vLLM forks engine and worker processes
 * that must die with it), streams its output into the redacted log and records it in the state file.
 */
async function spawnServerProcess(argv, options, services) {
    const [command, ...args] = argv;
    if (command === undefined)
        return { spawnError: "the command line is empty" };
    const child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
    });
    const spawned = await new Promise((resolve) => {
        child.once("spawn", () => resolve({ ok: true }));
        child.once("error", (error) => resolve({
            ok: false,
            message: error.code === "ENOENT"
                ? `"${command}" was not found (is it installed and on PATH${options.cwd ? `, relative to ${options.cwd}` : ""}?)`
                : `"${command}" could not be started: ${error.message}`,
        }));
    });
    if (!spawned.ok || child.pid === undefined)
        return { spawnError: spawned.ok ? "no process id" : spawned.message };
    const pid = child.pid;
    services.log.follow(child.stdout);
    services.log.follow(child.stderr);
    let stopping = false;
    const closed = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    const exited = closed.then(({ code, signal }) => new Promise((resolve) => {
        if (stopping)
            return;
        resolve({
            reason: signal
                ? `the server process was killed by ${signal}`
                : `the server process exited with code ${code}`,
        });
    }));
    let stopped;
    const server = {
        child,
        pid,
        exited,
        stop() {
            stopping = true;
            stopped ??= (async () => {
                const result = await terminateGroup(pid, { graceMs: services.stopGraceMs, clock: services.clock });
                const notes = [];
                if (result.escalated)
                    notes.push(`the server ignored SIGTERM for ${services.stopGraceMs} ms and was killed (SIGKILL)`);
                if (result.survived)
                    notes.push(`process group ${pid} survived SIGKILL`);
                // The leader is reaped by Node; give the exit event a moment so pipes are drained into the log.
                await Promise.race([closed, services.clock.sleep(2_000)]);
                return { ...result, notes };
            })();
            return stopped;
        },
    };
    try {
        await services.remember({
            kind: options.kind,
            pid,
            processGroup: pid,
            port: options.port,
            logFile: services.log.path,
        });
    }
    catch (error) {
        // A server nobody could clean up after a cancellation must not be left running.
        await server.stop();
        throw error;
    }
    return server;
}

/** `runningOnPort` of a kind that leaves nothing on a port but processes the state file records. */
const nothingElseOnPort = () => Promise.resolve([]);

async function launchCommand(config, services, options) {
    const argv = withDevice(config.argv, services.device, config.port);
    // Printed and recorded as the config writes it: `${VAR}` stays a template (it may be a secret; the log
    // and the run's fingerprint go through the job's output seam too); the condition keeps `{port}` and
    // `{device}` as written, so the servers of several devices record alike.
    const recordedArgv = (options.recorded ?? config).argv;
    services.log.note(`starting: ${withDevice(recordedArgv, services.device, config.port).join(" ")}`);
    const spawned = await spawnServerProcess(argv, {
        cwd: config.cwd,
        env: { ...services.env, ...devModeEnv(options.devMode), ...deviceEnv(services.device), ...config.env },
        kind: "command",
        port: config.port,
    }, services);
    if ("spawnError" in spawned) {
        throw new ServerStartError({
            summary: `server.argv could not be started: ${spawned.spawnError}.`,
            stage: "launch",
            logFile: services.log.path,
        });
    }
    const baseUrl = `http://${config.host}:${config.port}`;
    return {
        baseUrl,
        metricsUrl: `${baseUrl}/metrics`,
        port: config.port,
        exited: spawned.exited,
        conditions: { command: recordedArgv, args: recordedArgv.slice(1) },
        stop: () => spawned.stop(),
    };
}
/** Any command line, started as the leader of its own process group. */
const commandEntry = {
    launch: ({ config, services, sharedByCell, recorded }) => launchCommand(config, services, { devMode: sharedByCell, recorded: recorded.server }),
    settings: (server) => ({ env: Object.keys(server.env).sort(), lifecycle: server.lifecycle }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    runningOnPort: nothingElseOnPort,
    passedEnv: () => [],
};

/** Engine flags are `--name value` or `--name=value`; finds a value either way. */
function flagValue(args, flag) {
    for (let index = 0; index < args.length; index++) {
        const arg = args[index];
        if (arg === flag)
            return args[index + 1];
        if (arg.startsWith(`${flag}=`))
            return arg.slice(flag.length + 1);
    }
    return undefined;
}
function hasFlag(args, flag) {
    return args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
}

const defaultContainerPort = 8000;
/**
 * Engine arguments as the container will get them: the configured ones, plus the model pins from the
 * `model` section when the arguments do not already say them, so the recorded pins are the ones served.
 */
function dockerEngineArgs(config, model) {
    const args = [...config.args];
    const positionalModel = args.length > 0 && !args[0].startsWith("-");
    const extra = [];
    // vllm/vllm-openai's entrypoint is `vllm serve`, which takes the model positionally (--model draws a
    // deprecation warning there); an image whose entrypoint wants --model says so in server.args.
    const addModel = !positionalModel && !hasFlag(args, "--model");
    if (!hasFlag(args, "--served-model-name"))
        extra.push("--served-model-name", model.name);
    if (model.revision && !hasFlag(args, "--revision"))
        extra.push("--revision", model.revision);
    if (model.tokenizer_revision && !hasFlag(args, "--tokenizer-revision")) {
        extra.push("--tokenizer-revision", model.tokenizer_revision);
    }
    if (positionalModel)
        return [args[0], ...extra, ...args.slice(1)];
    return addModel ? [model.source ?? model.name, ...extra, ...args] : [...extra, ...args];
}
/** `docker run` arguments: GPUs, shared memory for NCCL (--ipc=host), the port, the HF cache, env by name. */
function dockerRunArgs(config, engineArgs, containerName, options) {
    const containerPort = Number(flagValue(engineArgs, "--port") ?? defaultContainerPort);
    return [
        "run",
        "--detach",
        "--name",
        containerName,
        "--label",
        containerLabel,
        ...gpusArgs(config, options.device),
        "--ipc=host",
        "--publish",
        `${publishHost(config.publish_address)}:${config.port}:${containerPort}`,
        ...(config.hf_cache_dir ? ["--volume", `${config.hf_cache_dir}:/root/.cache/huggingface`] : []),
        // By name only: docker copies the value from its own environment, so no secret is on a command line.
        ...config.env.flatMap((name) => ["--env", name]),
        ...(options.devMode ? ["--env", "VLLM_SERVER_DEV_MODE=1"] : []),
        ...config.docker_args,
        config.image,
        ...engineArgs,
    ];
}
/**
 * docker's --gpus: one server per device (runner.devices) gets docker's device request, quoted when it
 * lists several; otherwise the config's value, and no flag at all for `gpus: none`.
 */
function gpusArgs(config, device) {
    if (device)
        return ["--gpus", device.spec.includes(",") ? `"device=${device.spec}"` : `device=${device.spec}`];
    return config.gpus === "none" ? [] : ["--gpus", config.gpus];
}
/** An IPv6 address is bracketed in docker's --publish. */
function publishHost(address) {
    return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}
/** Where the tool connects: the published address, or loopback when it is published on every interface. */
function connectHost(address) {
    if (address === "0.0.0.0" || address === "::" || address === "[::]")
        return "127.0.0.1";
    return publishHost(address);
}
/** A repository as docker names it in RepoDigests: Docker Hub's host and `library/` left out. */
function hubShortName(repository) {
    return repository
        .replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, "")
        .replace(/^library\//, "");
}
/**
 * The repo digest of the configured repository, from `docker image inspect` RepoDigests, or null. Never
 * another repository's: a local tag over an image once pushed elsewhere would record that push, whose
 * order among RepoDigests differs between machines; the image ID is the identity of such an image.
 */
function pickRepoDigest(repoDigests, image) {
    const repository = hubShortName(image.split("@")[0].replace(/:[^/:]+$/, ""));
    return repoDigests.find((digest) => hubShortName(digest.split("@")[0]) === repository) ?? null;
}
async function launchDocker(config, model, services) {
    const { log } = services;
    const fail = (summary, lines) => new ServerStartError({
        summary,
        stage: "launch",
        diagnosis: diagnoseLog(lines),
        lastLogLines: lines.slice(-20),
        logFile: log.path,
    });
    const recorded = services.recorded ?? { server: config};
    const { digest: imageDigest, id: imageId } = await resolveImage(config.image, services, fail);
    if (!config.image.includes("@sha256:")) {
        services.warnOnce(`server.image "${recorded.server.image}" is pinned by tag only (resolved to ${imageDigest ?? "an unknown digest"}); a tag can move, so pin the digest (image@sha256:...) for reproducible comparisons.`);
    }
    const containerName = `vllm-perf-gate-${services.id}`;
    const recordedEngineArgs = await runContainer(config, model, containerName, services, fail);
    const container = followContainer(containerName, services);
    let stopped;
    return {
        baseUrl: `http://${connectHost(config.publish_address)}:${config.port}`,
        metricsUrl: `http://${connectHost(config.publish_address)}:${config.port}/metrics`,
        port: config.port,
        exited: container.exited,
        conditions: { image: recorded.server.image, imageDigest, imageId, args: recordedEngineArgs },
        stop() {
            container.stopping();
            stopped ??= stopContainer(containerName, container.followers, services);
            return stopped;
        },
    };
}
/**
 * `docker run` of the container, remembered before it runs (a main step cancelled meanwhile still leaves
 * a name to remove) and printed as the config writes it; a failed run is removed and its output logged.
 * Returns the engine arguments as recorded.
 */
async function runContainer(config, model, containerName, services, fail) {
    const { log, env } = services;
    const docker = services.dockerCommand;
    const recorded = services.recorded ?? { server: config, model };
    const placement = { devMode: services.devMode, device: services.device };
    const runArgs = dockerRunArgs(config, dockerEngineArgs(config, model), containerName, placement);
    await services.remember({
        kind: "docker",
        container: containerName,
        dockerCommand: [...docker],
        port: config.port,
        logFile: log.path,
    });
    const recordedEngineArgs = dockerEngineArgs(recorded.server, recorded.model);
    log.note(`${describeDockerCli(docker)} ${dockerRunArgs(recorded.server, recordedEngineArgs, containerName, placement).join(" ")}`);
    let runPid;
    const running = dockerExec(docker, runArgs, {
        env,
        timeoutMs: services.startupTimeoutMs,
        onSpawn: (pid) => {
            runPid = pid;
        },
    });
    services.launching?.(runPid, running);
    const run = await running;
    if (run.code !== 0) {
        const lines = `${run.stdout}\n${run.stderr}`.split("\n").filter((line) => line.trim() !== "");
        for (const line of lines)
            log.line(line);
        await dockerExec(docker, ["rm", "--force", containerName], { env, timeoutMs: 30_000 });
        throw fail(run.timedOut
            ? `docker run did not return within ${Math.round(services.startupTimeoutMs / 1000)} s.`
            : `docker run ${recorded.server.image} failed (exit code ${run.code}).`, log.lastLines(20));
    }
    log.note(`container ${containerName} started (id ${run.stdout.trim().slice(0, 12)})`);
    return recordedEngineArgs;
}
/**
 * The running container's log followed into the server log (`docker logs --follow`) and its exit watched
 * (`docker wait`): `exited` resolves when it stops on its own, never after `stopping()`.
 */
function followContainer(containerName, services) {
    const { log, env } = services;
    const docker = services.dockerCommand;
    const logs = dockerSpawn(docker, ["logs", "--follow", containerName], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
    });
    logs.on("error", () => { });
    log.follow(logs.stdout);
    log.follow(logs.stderr);
    let stopping = false;
    const waiter = dockerSpawn(docker, ["wait", containerName], { env, stdio: ["ignore", "pipe", "ignore"] });
    const exited = new Promise((resolve) => {
        let output = "";
        waiter.stdout?.setEncoding("utf8").on("data", (chunk) => {
            output += chunk;
        });
        const report = () => {
            if (stopping)
                return;
            const code = output.trim();
            resolve({
                reason: code
                    ? `container ${containerName} exited with code ${code}`
                    : `container ${containerName} stopped`,
            });
        };
        waiter.once("close", report);
        waiter.once("error", report);
    });
    return {
        exited,
        followers: [logs, waiter],
        stopping: () => {
            stopping = true;
        },
    };
}
async function resolveImage(image, services, fail) {
    const docker = services.dockerCommand;
    const inspect = () => dockerExec(docker, ["image", "inspect", "--format", "{{json .RepoDigests}}", image], {
        env: services.env,
        timeoutMs: 30_000,
    });
    let result = await inspect();
    if (result.spawnError) {
        throw fail(`"${docker[0]}" could not be run (${result.spawnError.code ?? result.spawnError.message}): server.kind docker needs the docker CLI on PATH (or server.docker_command) and a running daemon.`, []);
    }
    if (result.code !== 0) {
        services.log.note(`image ${image} not present locally; pulling`);
        const pull = await dockerExec(docker, ["pull", image], {
            env: services.env,
            timeoutMs: services.startupTimeoutMs,
            onLine: (line) => services.log.line(line),
        });
        if (pull.code !== 0) {
            throw fail(pull.timedOut
                ? `docker pull ${image} did not finish within ${Math.round(services.startupTimeoutMs / 1000)} s.`
                : `docker pull ${image} failed (exit code ${pull.code}): the server was not started.`, services.log.lastLines(20));
        }
        result = await inspect();
    }
    if (result.code !== 0)
        return { digest: null, id: null };
    // The image ID identifies an image that has no repo digest (built, imported, loaded): what a local
    // tag pointed at when the run started.
    const id = await dockerExec(docker, ["image", "inspect", "--format", "{{.Id}}", image], {
        env: services.env,
        timeoutMs: 30_000,
    });
    const imageId = id.code === 0 && /^sha256:[0-9a-f]{64}$/.test(id.stdout.trim()) ? id.stdout.trim() : null;
    try {
        const digests = JSON.parse(result.stdout.trim());
        return {
            digest: Array.isArray(digests) ? pickRepoDigest(digests.map(String), image) : null,
            id: imageId,
        };
    }
    catch {
        return { digest: null, id: imageId };
    }
}
async function stopContainer(containerName, followers, services) {
    const docker = services.dockerCommand;
    const graceS = Math.max(1, Math.ceil(services.stopGraceMs / 1000));
    const notes = [];
    const started = services.clock.now();
    // docker stop sends SIGTERM, waits -t seconds, then SIGKILLs; rm --force removes whatever is left.
    // -t: `--time` in docker 20.10, `--timeout` since 28 (which deprecates --time); -t is both.
    const stop = await dockerExec(docker, ["stop", "-t", String(graceS), containerName], {
        env: services.env,
        timeoutMs: services.stopGraceMs + 30_000,
    });
    const escalated = stop.code === 0 && services.clock.now() - started >= graceS * 1000;
    // `docker logs --follow` ends by itself once the container stops; let it deliver the last lines.
    const [logs] = followers;
    if (logs && logs.exitCode === null && logs.signalCode === null) {
        await Promise.race([new Promise((resolve) => logs.once("close", resolve)), services.clock.sleep(2_000)]);
    }
    if (escalated)
        notes.push(`container ${containerName} ignored SIGTERM for ${graceS} s and was killed`);
    const remove = await dockerExec(docker, ["rm", "--force", containerName], {
        env: services.env,
        timeoutMs: 30_000,
    });
    const survived = remove.code !== 0 && !/No such container/i.test(remove.stderr);
    if (survived)
        notes.push(`docker rm --force ${containerName} failed: ${remove.stderr.trim()}`);
    for (const follower of followers)
        if (follower.exitCode === null)
            follower.kill("SIGKILL");
    return { escalated, survived, notes };
}

/** A pinned container started through the docker CLI (docker-launcher.ts), in dev mode when a cell shares it. */
const dockerEntry = {
    launch: ({ config, model, services, sharedByCell, recorded }) => launchDocker(config, model, {
        ...services,
        dockerCommand: dockerCliOf(config),
        devMode: sharedByCell,
        recorded,
    }),
    settings: (server) => ({
        gpus: server.gpus,
        dockerArgs: [...server.docker_args],
        env: [...server.env].sort(),
        lifecycle: server.lifecycle,
    }),
    usesLocalGpu: true,
    fixedPort: (server) => server.port,
    runningOnPort: (server, port, env) => labelledContainersOnPort(dockerCliOf(server), port, { env }),
    passedEnv: (server) => server.env,
};

/** Where an external server (a config's or --base-url's) is reached. */
function externalEndpoint(server) {
    const baseUrl = server.base_url.replace(/\/+$/, "");
    return { baseUrl, metricsUrl: server.metrics_url ?? `${baseUrl}/metrics` };
}
/** A server someone else runs: reached, never started or stopped. */
const externalEntry = {
    launch: ({ config, services, recorded }) => {
        services.log.note(`external server at ${recorded.server.base_url}: nothing to launch`);
        return Promise.resolve({
            ...externalEndpoint(config),
            // An external server is not ours to watch or stop.
            exited: new Promise(() => { }),
            conditions: { args: [] },
            stop: async () => ({ escalated: false, survived: false, notes: [] }),
        });
    },
    settings: () => ({}),
    usesLocalGpu: false,
    fixedPort: () => 0,
    runningOnPort: nothingElseOnPort,
    passedEnv: () => [],
};

/**
 * How to run `vllm-perf-gate sim`: the bundled CLI (dist/cli.js) when it exists, which is always the case in
 * the published action; otherwise the TypeScript entry through tsx (a development checkout).
 */
function findPackageRoot(from = dirname(fileURLToPath(import.meta.url))) {
    let directory = from;
    for (;;) {
        const manifest = join(directory, "package.json");
        if (existsSync(manifest)) {
            try {
                if (JSON.parse(readFileSync(manifest, "utf8")).name === "vllm-perf-gate")
                    return directory;
            }
            catch {
                // Not ours; keep climbing.
            }
        }
        const parent = dirname(directory);
        if (parent === directory)
            return undefined;
        directory = parent;
    }
}
/**
 * The argv prefix that runs the CLI; the launcher appends `sim` and its flags. Running from source (this
 * module is a .ts file under tsx or vitest), the simulator runs from source too, so a stale dist/ build
 * never answers for the code under test; the bundled action runs dist/cli.js.
 */
function defaultCliCommand(root = findPackageRoot(), fromSource = import.meta.url.endsWith(".ts")) {
    if (root === undefined)
        return ["vllm-perf-gate"];
    const bundled = join(root, "dist", "cli.js");
    const source = join(root, "src", "cli.ts");
    if (fromSource && existsSync(source))
        return [process.execPath, "--import", resolveTsxLoader(root), source];
    if (existsSync(bundled))
        return [process.execPath, bundled];
    return [process.execPath, "--import", resolveTsxLoader(root), source];
}
function resolveTsxLoader(root) {
    try {
        return import.meta.resolve("tsx");
    }
    catch {
        return join(root, "node_modules", "tsx", "dist", "loader.mjs");
    }
}

/** Simulator flags as the sim command takes them; also what the fingerprint records (no machine paths). */
function simArgs(config, model, seed) {
    return [
        "--host",
        "127.0.0.1",
        "--port",
        String(config.port),
        "--profile",
        config.profile,
        "--seed",
        String(seed),
        ...Object.entries(config.set)
            .sort(([a], [b]) => a.localeCompare(b))
            .flatMap(([key, value]) => ["--set", `${key}=${value}`]),
        "--served-model-name",
        model.name,
        ...config.args,
    ];
}
const listeningLine = /vllm-perf-gate sim listening on (https?:\/\/\S+)/;
/**
 * The simulator's environment: the job's, with `VLLM_API_KEY` (where it reads its key, as vLLM does) set to
 * exactly the key the client sends, or removed when the client sends none. A `VLLM_API_KEY` the job's
 * environment holds for some other server must not make the simulator refuse this tool's own client, and a
 * key named by `server.api_key_env` must be the one it requires. The key travels in the environment, never
 * on the command line, which the log and the process list show.
 */
function simEnv(env, apiKey) {
    const { VLLM_API_KEY: _inherited, ...rest } = env;
    return apiKey === undefined ? rest : { ...rest, VLLM_API_KEY: apiKey };
}
async function launchSim(config, model, services, options) {
    // Each start draws its own noise from the configured seed, so per-run servers are not identical replicas.
    const args = simArgs(config, model, config.seed + options.startIndex);
    // The simulated GPU: its device index (the first of the server's devices) selects its speed.
    const device = services.device ? ["--device", services.device.spec.split(",")[0]] : [];
    const argv = [...defaultCliCommand(), "sim", ...args, ...device];
    // Printed as the config writes it: `${VAR}` stays a template (it may be a secret).
    const recordedConfig = options.recorded?.server ?? config;
    const recordedModel = options.recorded?.model ?? model;
    const shownSeed = typeof recordedConfig.seed === "number" ? recordedConfig.seed + options.startIndex : recordedConfig.seed;
    services.log.note(`starting simulator: vllm-perf-gate sim ${[...simArgs(recordedConfig, recordedModel, shownSeed), ...device].join(" ")}`);
    const announcement = listenForAddress(services);
    const launchedAt = services.clock.now();
    const spawned = await spawnServerProcess(argv, {
        env: {
            ...simEnv(services.env, options.apiKey),
            ...devModeEnv(options.devMode),
            ...deviceEnv(services.device),
        },
        kind: "sim",
        port: config.port,
    }, services);
    if ("spawnError" in spawned) {
        announcement.stop();
        throw new ServerStartError({
            summary: `The simulator could not be started: ${spawned.spawnError}.`,
            stage: "launch",
            logFile: services.log.path,
        });
    }
    // The port is only known once the simulator says where it listens (port 0: it picks one).
    const baseUrl = config.port === 0
        ? await announcedAddress(announcement, spawned, services)
        : `http://127.0.0.1:${config.port}`;
    announcement.stop();
    const port = Number(new URL(baseUrl).port);
    // The configured seed is the condition; the per-start seed derived from it is in the log. Recorded
    // from the config as written (templates for values from the environment).
    const recordedArgs = simArgs(recordedConfig, recordedModel, recordedConfig.seed);
    return {
        baseUrl,
        metricsUrl: `${baseUrl}/metrics`,
        port,
        exited: spawned.exited,
        launchedAt,
        conditions: {
            command: ["vllm-perf-gate", "sim", ...recordedArgs.filter((_, i) => !isPortPair(recordedArgs, i))],
            args: recordedConfig.args,
        },
        stop: () => spawned.stop(),
    };
}
/** The address the simulator announces in its log ("vllm-perf-gate sim listening on URL"), once it does. */
function listenForAddress(services) {
    let announced = () => { };
    const address = new Promise((resolve) => {
        announced = resolve;
    });
    const stop = services.log.onLine((line) => {
        const url = listeningLine.exec(line)?.[1];
        if (url)
            announced(url.replace("//0.0.0.0:", "//127.0.0.1:").replace(/\/+$/, ""));
    });
    return { address, stop };
}
/** The announced address; a simulator that exits or times out first is stopped and the start fails. */
async function announcedAddress(announcement, spawned, services) {
    const timeout = services.clock.sleep(services.startupTimeoutMs).then(() => undefined);
    const url = await Promise.race([announcement.address, spawned.exited.then(() => undefined), timeout]);
    if (url !== undefined)
        return url;
    announcement.stop();
    await spawned.stop();
    throw new ServerStartError({
        summary: 'The simulator did not announce its address ("vllm-perf-gate sim listening on ...") before it exited or timed out.',
        stage: "readiness",
        lastLogLines: services.log.lastLines(20),
        logFile: services.log.path,
    });
}
/** A picked port is incidental, not a condition: drop `--port N` from the recorded command line. */
function isPortPair(args, index) {
    return args[index] === "--port" || args[index - 1] === "--port";
}
/** The built-in simulator, started as a `vllm-perf-gate sim` process that announces its address. */
const simEntry = {
    launch: ({ config, model, apiKey, services, startIndex, sharedByCell, recorded }) => launchSim(config, model, services, {
        apiKey,
        startIndex,
        devMode: sharedByCell,
        recorded,
    }),
    settings: (server) => ({ lifecycle: server.lifecycle }),
    usesLocalGpu: false,
    fixedPort: (server) => server.port,
    runningOnPort: nothingElseOnPort,
    passedEnv: () => [],
};

/**
 * The server-kind registry: each kind's behaviour, one module per kind in kinds/ (how it is launched or
 * reached, what the fingerprint records of it, its GPU, port and passed variables). Keyed by the kinds of
 * config/server-kinds.ts, so a new kind there fails to compile until its entry is here. `--base-url` is an
 * `external` server given on the command line (base-url.ts), so it is reached and fingerprinted by that entry.
 */
const serverKindRegistry = {
    docker: dockerEntry,
    command: commandEntry,
    external: externalEntry,
    sim: simEntry,
};
/** The registry entry of a config's kind, typed for that config. */
function kindEntry(server) {
    return serverKindRegistry[server.kind];
}

/**
 * The one set of a job's secrets: every value that must never be written or printed, each with the
 * variable it came from. A job's root (a CLI command, the action's main step) builds it once, from the
 * same environment its configs were loaded with and from every config it loaded, and builds the job's
 * output seam from it (outbound.ts), through which every writer writes: the server's log, the run files,
 * messages, compare's verdict and reports, the comment, the job summary and the evidence. Nothing adds
 * to it later. The README's Secrets section lists the same sources.
 */
/** Names that look like credentials; their values are secrets whether or not a config reads them. */
const credentialName = /TOKEN|SECRET|PASSWORD|API_KEY|APIKEY|PRIVATE/i;
/**
 * Every value of the job's secrets, in this order, each value once: the token; per config,
 * `server.api_key_env`'s value, the values of the variables the server is handed by name (the docker
 * kind's `server.env`), the values the config read through `${VAR}`; the variables named on the command
 * line; and, as a safety net, every variable whose name looks like a credential (`credentialName`).
 */
function secretsOf(sources) {
    const { env } = sources;
    const named = [];
    const seen = new Set();
    const add = (name, value) => {
        if (!value || seen.has(value))
            return;
        seen.add(value);
        named.push({ name, value });
    };
    const fromEnv = (name) => {
        if (name)
            add(name, env[name]);
    };
    add("github-token", sources.token);
    for (const { config, interpolation } of sources.configs ?? []) {
        const server = config.server;
        if ("api_key_env" in server)
            fromEnv(server.api_key_env);
        for (const name of kindEntry(server).passedEnv(server))
            fromEnv(name);
        for (const entry of interpolation.values)
            add(entry.name, entry.value);
    }
    for (const name of sources.variables ?? [])
        fromEnv(name);
    for (const name of Object.keys(env).sort())
        if (credentialName.test(name))
            fromEnv(name);
    return named;
}
/** The job's set (see secretsOf): built once, at the job's root. */
function collectJobSecrets(sources) {
    return { named: secretsOf(sources) };
}

/**
 * A job's one way out, built at its root (`run`, `compare`, `calibrate`, `demo`, `history`, the action's
 * main step) once it has read what can hold a secret: the job's one secret set (server/secrets.ts) of
 * the environment its configs were loaded with, those configs, the variables its flags name and its
 * token; and the forms our reports give a value (markdown and HTML escaping), for the last pass over
 * what was rendered.
 */
function jobOutbound(sources) {
    return createOutbound(collectJobSecrets(sources), { forms: renderedForms });
}

export { ServerStartError as S, diagnoseLog as d, externalEndpoint as e, jobOutbound as j, kindEntry as k, minimumSecretLength as m };
