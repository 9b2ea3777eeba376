import type { FanOutConfig } from "../config/dataset-kinds/fan-out.js";
import type { Rng } from "../util/random.js";
import { drawLength } from "./lengths.js";
import { randomWords } from "./text.js";
import { type TokenModel, wordsForPart } from "./token-model.js";

/**
 * Sub-agent fan-out (docs/workloads.md, Sub-agent fan-out): at a fan-out turn the session sends its
 * branches at once, each the conversation so far, the turn's message and the branch's own message; the
 * session goes on when every branch answered.
 */
interface SessionBranch {
  /** The branch's own message (its task), after the turn's message. */
  content: string;
  /** Tokens asked for the branch's message. */
  messageTokens: number;
  maxTokens: number;
}

export interface SessionFanOut {
  branches: SessionBranch[];
  /** The branches declare the session's tools and take their own tool rounds. */
  tools: boolean;
}

/**
 * The fan-outs of one session of `turns` turns: per turn (0-based) its branches, or null for a turn of one
 * request. Drawn from `rng`, the session's own fan-out stream, so a config without fan-out (or another
 * fan-out) leaves the session's turns, lengths and waits as they were.
 */
export function planFanOuts(
  fanOut: FanOutConfig | undefined,
  turns: number,
  rng: Rng,
  tokenModel: TokenModel,
): (SessionFanOut | null)[] {
  if (fanOut === undefined) return Array.from({ length: turns }, () => null);
  const chosen = new Set(fanOut.turns ?? []);
  return Array.from({ length: turns }, (_, turn) => {
    const fansOut = fanOut.turns !== undefined ? chosen.has(turn + 1) : rng.next() < fanOut.share!;
    if (!fansOut) return null;
    const count =
      typeof fanOut.branches === "number"
        ? fanOut.branches
        : rng.int(fanOut.branches.min, fanOut.branches.max);
    const branches = Array.from({ length: count }, (): SessionBranch => {
      const messageTokens = drawLength(fanOut.message_tokens, rng);
      const maxTokens = drawLength(fanOut.output_tokens, rng);
      return {
        content: randomWords(rng, wordsForPart(tokenModel, messageTokens)),
        messageTokens,
        maxTokens,
      };
    });
    return { branches, tools: fanOut.tools };
  });
}
