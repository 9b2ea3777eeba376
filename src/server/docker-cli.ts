import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { type ExecResult, execFileCapture } from "./exec.js";

/**
 * The docker command line every docker call goes through: the executable and the arguments before each
 * subcommand (`server.docker_command`: `[docker]`, `[podman]`, `[sudo, docker]`, `[docker, --context,
 * gpu-box]`). Recorded in the state file so a later cleanup reaches the same daemon.
 */
export type DockerCli = readonly [string, ...string[]];

const defaultDockerCli: DockerCli = ["docker"];

/** The docker command line of a docker server config (`server.docker_command`). */
export function dockerCliOf(server: { docker_command: readonly string[] }): DockerCli {
  const [command, ...rest] = server.docker_command;
  return command === undefined ? defaultDockerCli : [command, ...rest];
}

/** The docker command line recorded for a server (state file, signal tracking); docker when none was. */
export function dockerCliOfRecord(recorded: readonly string[] | undefined): DockerCli {
  return recorded && recorded.length > 0 ? dockerCliOf({ docker_command: recorded }) : defaultDockerCli;
}

/** Runs `CLI ARGS...` to completion (see execFileCapture). */
export function dockerExec(
  cli: DockerCli,
  args: readonly string[],
  options: Parameters<typeof execFileCapture>[2] = {},
): Promise<ExecResult> {
  return execFileCapture(cli[0], [...cli.slice(1), ...args], options);
}

/** Starts `CLI ARGS...` as a long-lived child (docker logs --follow, docker wait). */
export function dockerSpawn(cli: DockerCli, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn(cli[0], [...cli.slice(1), ...args], options);
}

/** The label of every container this tool starts (`docker run --label`), by which its containers are found. */
export const containerLabel = "vllm-perf-gate=1";

/**
 * Names of the running containers labelled `containerLabel` that publish `port`, for the error
 * of a start whose port is busy. Bounded (a few seconds of docker at most) and never throws: empty
 * when docker cannot tell.
 */
export async function labelledContainersOnPort(
  cli: DockerCli,
  port: number,
  options: { env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string[]> {
  const listed = await dockerExec(
    cli,
    ["ps", "--filter", `label=${containerLabel}`, "--filter", `publish=${port}`, "--format", "{{.Names}}"],
    { env: options.env, timeoutMs: options.timeoutMs ?? 5_000 },
  ).catch(() => null);
  if (listed === null || listed.code !== 0) return [];
  return listed.stdout
    .split("\n")
    .map((line) => line.trim())
    .filter((name) => name.length > 0);
}

/** The command line as printed in the server log. */
export function describeDockerCli(cli: DockerCli): string {
  return cli.join(" ");
}
