import type { ActionContext } from "../../github/context.js";

class ForkRefusedError extends Error {
  override readonly name = "ForkRefusedError";
}

/**
 * A pull request from a fork runs its author's code (the config, the datasets, any command server) on
 * our runner. On a self-hosted GPU host that code keeps whatever it leaves behind and can reach the
 * host's network, caches and credentials, so it is refused unless the repository explicitly opts in.
 */
export function guardForkPullRequest(context: ActionContext, allowForkPrs: boolean): void {
  const pr = context.pullRequest;
  if (!pr?.fromFork || context.runnerEnvironment !== "self-hosted" || allowForkPrs) return;
  throw new ForkRefusedError(
    `refusing to run pull request #${pr.number} from the fork ${pr.headRepoFullName ?? "(deleted repository)"} on a self-hosted runner: ` +
      "its code would run on your GPU host, which keeps state between jobs and can reach your network, caches and credentials. " +
      "Keep fork PRs off self-hosted runners (job condition `if: github.event.pull_request.head.repo.full_name == github.repository`), " +
      "or, if every fork PR is reviewed before it runs and the runner is ephemeral, set `allow-fork-prs: true`.",
  );
}
