import { Conversation, type SessionSource } from "../sessions.js";
import type { Workload, WorkloadInfo } from "../workload-types.js";

// What the session kinds' workloads share (generated sessions, conversation files, traces).

/** A session kind's workload: request i is session i's first turn, alone (the runner sends the rest). */
export function sessionWorkload(info: WorkloadInfo, sessions: SessionSource): Workload {
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
