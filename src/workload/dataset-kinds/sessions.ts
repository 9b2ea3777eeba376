import type { SessionDatasetConfig } from "../../config/dataset-kinds.js";
import { Conversation, type SessionSource, sessionSource } from "../sessions.js";
import type { Workload, WorkloadInfo } from "../workload-types.js";
import type { KindContext } from "./context.js";

// The session kinds (generated sessions, conversation files, traces): request i is session i's first turn; the runner sends the rest from the session source (../sessions.ts).

export function sessionsWorkload(
  dataset: SessionDatasetConfig,
  { cell, seed, tokenModel, file, info }: KindContext,
): Workload {
  return sessionWorkload(info, sessionSource(cell, dataset, { seed, tokenModel, file }));
}

/** A session workload: request i is session i's first turn, alone. */
function sessionWorkload(info: WorkloadInfo, sessions: SessionSource): Workload {
  return {
    info,
    sessions,
    request(index, phase = "measure") {
      const script = sessions.session(index, phase);
      const first = script.turns[0]!;
      return {
        index,
        phase,
        prompt: null,
        messages: new Conversation(script).ask(0),
        targetInputTokens:
          first.messageTokens === null ? null : (script.systemTokens ?? 0) + first.messageTokens,
        maxTokens: first.maxTokens,
        prefixGroup: script.sharedSystem ? 0 : null,
      };
    },
  };
}
