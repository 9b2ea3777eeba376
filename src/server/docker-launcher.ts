import type { ChildProcess } from "node:child_process";
import type { ModelConfig, ServerConfig } from "../config/schema.js";
import { diagnoseLog } from "./diagnose.js";
import { containerLabel, type DockerCli, describeDockerCli, dockerExec, dockerSpawn } from "./docker-cli.js";
import { ServerStartError } from "./errors.js";
import {
  flagValue,
  hasFlag,
  type LaunchedServer,
  type LaunchServices,
  type TeardownNotes,
} from "./launch.js";
import type { ServerDevice } from "./types.js";

type DockerConfig = Extract<ServerConfig, { kind: "docker" }>;

const defaultContainerPort = 8000;

/**
 * Engine arguments as the container will get them: the configured ones, plus the model pins from the
 * `model` section when the arguments do not already say them, so the recorded pins are the ones served.
 */
export function dockerEngineArgs(config: DockerConfig, model: ModelConfig): string[] {
  const args = [...config.args];
  const positionalModel = args.length > 0 && !args[0]!.startsWith("-");
  const extra: string[] = [];
  // vllm/vllm-openai's entrypoint is `vllm serve`, which takes the model positionally (--model draws a
  // deprecation warning there); an image whose entrypoint wants --model says so in server.args.
  const addModel = !positionalModel && !hasFlag(args, "--model");
  if (!hasFlag(args, "--served-model-name")) extra.push("--served-model-name", model.name);
  if (model.revision && !hasFlag(args, "--revision")) extra.push("--revision", model.revision);
  if (model.tokenizer_revision && !hasFlag(args, "--tokenizer-revision")) {
    extra.push("--tokenizer-revision", model.tokenizer_revision);
  }
  if (positionalModel) return [args[0]!, ...extra, ...args.slice(1)];
  return addModel ? [model.source ?? model.name, ...extra, ...args] : [...extra, ...args];
}

/** `docker run` arguments: GPUs, shared memory for NCCL (--ipc=host), the port, the HF cache, env by name. */
export function dockerRunArgs(
  config: DockerConfig,
  engineArgs: readonly string[],
  containerName: string,
  options: { devMode: boolean; device?: ServerDevice | undefined },
): string[] {
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
function gpusArgs(config: DockerConfig, device: ServerDevice | undefined): string[] {
  if (device)
    return ["--gpus", device.spec.includes(",") ? `"device=${device.spec}"` : `device=${device.spec}`];
  return config.gpus === "none" ? [] : ["--gpus", config.gpus];
}

/** An IPv6 address is bracketed in docker's --publish. */
function publishHost(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

/** Where the tool connects: the published address, or loopback when it is published on every interface. */
function connectHost(address: string): string {
  if (address === "0.0.0.0" || address === "::" || address === "[::]") return "127.0.0.1";
  return publishHost(address);
}

/** A repository as docker names it in RepoDigests: Docker Hub's host and `library/` left out. */
function hubShortName(repository: string): string {
  return repository
    .replace(/^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, "")
    .replace(/^library\//, "");
}

/**
 * The repo digest of the configured repository, from `docker image inspect` RepoDigests, or null. Never
 * another repository's: a local tag over an image once pushed elsewhere would record that push, whose
 * order among RepoDigests differs between machines; the image ID is the identity of such an image.
 */
export function pickRepoDigest(repoDigests: readonly string[], image: string): string | null {
  const repository = hubShortName(image.split("@")[0]!.replace(/:[^/:]+$/, ""));
  return repoDigests.find((digest) => hubShortName(digest.split("@")[0]!) === repository) ?? null;
}

type DockerServices = LaunchServices & {
  dockerCommand: DockerCli;
  devMode: boolean;
  /** The config as written (templates for values from the environment): what is printed and recorded. */
  recorded?: { server: DockerConfig; model: ModelConfig };
};

type LaunchFailure = (summary: string, lines: string[]) => ServerStartError;

export async function launchDocker(
  config: DockerConfig,
  model: ModelConfig,
  services: DockerServices,
): Promise<LaunchedServer> {
  const { log } = services;
  const fail: LaunchFailure = (summary, lines) =>
    new ServerStartError({
      summary,
      stage: "launch",
      diagnosis: diagnoseLog(lines),
      lastLogLines: lines.slice(-20),
      logFile: log.path,
    });
  const recorded = services.recorded ?? { server: config, model };
  const { digest: imageDigest, id: imageId } = await resolveImage(config.image, services, fail);
  if (!config.image.includes("@sha256:")) {
    services.warnOnce(
      `server.image "${recorded.server.image}" is pinned by tag only (resolved to ${imageDigest ?? "an unknown digest"}); a tag can move, so pin the digest (image@sha256:...) for reproducible comparisons.`,
    );
  }
  const containerName = `vllm-perf-gate-${services.id}`;
  const recordedEngineArgs = await runContainer(config, model, containerName, services, fail);
  const container = followContainer(containerName, services);
  let stopped: Promise<TeardownNotes> | undefined;
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
async function runContainer(
  config: DockerConfig,
  model: ModelConfig,
  containerName: string,
  services: DockerServices,
  fail: LaunchFailure,
): Promise<string[]> {
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
  log.note(
    `${describeDockerCli(docker)} ${dockerRunArgs(recorded.server, recordedEngineArgs, containerName, placement).join(" ")}`,
  );
  let runPid: number | undefined;
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
    for (const line of lines) log.line(line);
    await dockerExec(docker, ["rm", "--force", containerName], { env, timeoutMs: 30_000 });
    throw fail(
      run.timedOut
        ? `docker run did not return within ${Math.round(services.startupTimeoutMs / 1000)} s.`
        : `docker run ${recorded.server.image} failed (exit code ${run.code}).`,
      log.lastLines(20),
    );
  }
  log.note(`container ${containerName} started (id ${run.stdout.trim().slice(0, 12)})`);
  return recordedEngineArgs;
}

/**
 * The running container's log followed into the server log (`docker logs --follow`) and its exit watched
 * (`docker wait`): `exited` resolves when it stops on its own, never after `stopping()`.
 */
function followContainer(
  containerName: string,
  services: DockerServices,
): { exited: Promise<{ reason: string }>; followers: ChildProcess[]; stopping(): void } {
  const { log, env } = services;
  const docker = services.dockerCommand;
  const logs = dockerSpawn(docker, ["logs", "--follow", containerName], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  logs.on("error", () => {});
  log.follow(logs.stdout);
  log.follow(logs.stderr);
  let stopping = false;
  const waiter = dockerSpawn(docker, ["wait", containerName], { env, stdio: ["ignore", "pipe", "ignore"] });
  const exited = new Promise<{ reason: string }>((resolve) => {
    let output = "";
    waiter.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const report = () => {
      if (stopping) return;
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

async function resolveImage(
  image: string,
  services: LaunchServices & { dockerCommand: DockerCli },
  fail: (summary: string, lines: string[]) => ServerStartError,
): Promise<{ digest: string | null; id: string | null }> {
  const docker = services.dockerCommand;
  const inspect = () =>
    dockerExec(docker, ["image", "inspect", "--format", "{{json .RepoDigests}}", image], {
      env: services.env,
      timeoutMs: 30_000,
    });
  let result = await inspect();
  if (result.spawnError) {
    throw fail(
      `"${docker[0]}" could not be run (${result.spawnError.code ?? result.spawnError.message}): server.kind docker needs the docker CLI on PATH (or server.docker_command) and a running daemon.`,
      [],
    );
  }
  if (result.code !== 0) {
    services.log.note(`image ${image} not present locally; pulling`);
    const pull = await dockerExec(docker, ["pull", image], {
      env: services.env,
      timeoutMs: services.startupTimeoutMs,
      onLine: (line) => services.log.line(line),
    });
    if (pull.code !== 0) {
      throw fail(
        pull.timedOut
          ? `docker pull ${image} did not finish within ${Math.round(services.startupTimeoutMs / 1000)} s.`
          : `docker pull ${image} failed (exit code ${pull.code}): the server was not started.`,
        services.log.lastLines(20),
      );
    }
    result = await inspect();
  }
  if (result.code !== 0) return { digest: null, id: null };
  // The image ID identifies an image that has no repo digest (built, imported, loaded): what a local
  // tag pointed at when the run started.
  const id = await dockerExec(docker, ["image", "inspect", "--format", "{{.Id}}", image], {
    env: services.env,
    timeoutMs: 30_000,
  });
  const imageId = id.code === 0 && /^sha256:[0-9a-f]{64}$/.test(id.stdout.trim()) ? id.stdout.trim() : null;
  try {
    const digests = JSON.parse(result.stdout.trim()) as unknown;
    return {
      digest: Array.isArray(digests) ? pickRepoDigest(digests.map(String), image) : null,
      id: imageId,
    };
  } catch {
    return { digest: null, id: imageId };
  }
}

async function stopContainer(
  containerName: string,
  followers: readonly ChildProcess[],
  services: LaunchServices & { dockerCommand: DockerCli },
): Promise<TeardownNotes> {
  const docker = services.dockerCommand;
  const graceS = Math.max(1, Math.ceil(services.stopGraceMs / 1000));
  const notes: string[] = [];
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
  if (escalated) notes.push(`container ${containerName} ignored SIGTERM for ${graceS} s and was killed`);
  const remove = await dockerExec(docker, ["rm", "--force", containerName], {
    env: services.env,
    timeoutMs: 30_000,
  });
  const survived = remove.code !== 0 && !/No such container/i.test(remove.stderr);
  if (survived) notes.push(`docker rm --force ${containerName} failed: ${remove.stderr.trim()}`);
  for (const follower of followers) if (follower.exitCode === null) follower.kill("SIGKILL");
  return { escalated, survived, notes };
}
