import { mixSeed, seededRandom } from "../util/random.js";

/**
 * What a simulated answer is made of, drawn per request from a seeded policy (pure): the reasoning tokens
 * a `--reasoning-parser` would stream before the answer, and, for a chat request that declares tools,
 * whether the answer is a tool call and which. The draw is a function of (prompt tokens, the request's
 * seed, model_revision), so a replayed request gets the same plan on every run and machine.
 */

interface PlannedToolCall {
  /** As vLLM's make_tool_call_id: "chatcmpl-tool-" and 32 hex digits. */
  id: string;
  name: string;
  /** The arguments' JSON text in the pieces streamed, one output token each. */
  pieces: string[];
}

export interface AnswerPlan {
  /** Output tokens before the answer that are reasoning (0 without a reasoning parser). */
  reasoningTokens: number;
  toolCall: PlannedToolCall | null;
}

/** The tools a request declares, as the simulator reads them: names and argument names with types. */
export interface DeclaredTool {
  name: string;
  parameters: { name: string; type: string }[];
}

export interface AnswerPolicy {
  reasoning_tokens_mean: number;
  reasoning_tokens_spread: number;
  tool_call_share: number;
  tool_call_malformed_share: number;
  model_revision: number;
}

/** Characters of the arguments' JSON text per streamed piece (one token each). */
const charsPerPiece = 4;
/** Arguments the simulator fills in per call, at most (the tool's first properties). */
const maxArguments = 8;

export function planAnswer(
  promptHash: number,
  seed: number | undefined,
  tools: readonly DeclaredTool[],
  policy: AnswerPolicy,
): AnswerPlan {
  const random = seededRandom(mixSeed(mixSeed(promptHash, policy.model_revision), seed ?? 0x5eed));
  const mean = policy.reasoning_tokens_mean;
  let reasoningTokens = 0;
  if (mean > 0) {
    // Uniform within mean x (1 ± spread), at least one token.
    const low = Math.max(1, Math.round(mean * (1 - policy.reasoning_tokens_spread)));
    const high = Math.max(low, Math.round(mean * (1 + policy.reasoning_tokens_spread)));
    reasoningTokens = low + Math.floor(random.next() * (high - low + 1));
  }
  const callDraw = random.next();
  if (tools.length === 0 || callDraw >= policy.tool_call_share) return { reasoningTokens, toolCall: null };
  const tool = tools[Math.floor(random.next() * tools.length)]!;
  const args: Record<string, unknown> = {};
  for (const parameter of tool.parameters.slice(0, maxArguments)) {
    const value = Math.floor(random.next() * 1000);
    args[parameter.name] =
      parameter.type === "integer" || parameter.type === "number"
        ? value
        : parameter.type === "boolean"
          ? value % 2 === 0
          : `v${value}`;
  }
  let text = JSON.stringify(args);
  // A malformed call: the arguments stop short of their closing brace (not JSON), as a parser that
  // lost the end of a call streams them.
  if (random.next() < policy.tool_call_malformed_share) text = text.slice(0, Math.max(1, text.length - 2));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += charsPerPiece) pieces.push(text.slice(at, at + charsPerPiece));
  let hex = "";
  while (hex.length < 32)
    hex += Math.floor(random.next() * 0x10000)
      .toString(16)
      .padStart(4, "0");
  return { reasoningTokens, toolCall: { id: `chatcmpl-tool-${hex}`, name: tool.name, pieces } };
}

/**
 * The tools of a chat request's `tools` (OpenAI's shape: `{type: "function", function: {name,
 * parameters}}`); entries without a function name are left out (vLLM's protocol.py rejects them, the
 * simulator need not).
 */
export function declaredTools(tools: unknown): DeclaredTool[] {
  if (!Array.isArray(tools)) return [];
  const declared: DeclaredTool[] = [];
  for (const tool of tools) {
    const fn = (tool as { function?: { name?: unknown; parameters?: unknown } } | null)?.function;
    if (typeof fn?.name !== "string" || fn.name === "") continue;
    const properties = (fn.parameters as { properties?: unknown } | undefined)?.properties;
    const parameters =
      properties !== null && typeof properties === "object"
        ? Object.entries(properties as Record<string, unknown>).map(([name, schema]) => ({
            name,
            type: String((schema as { type?: unknown } | null)?.type ?? "string"),
          }))
        : [];
    declared.push({ name: fn.name, parameters });
  }
  return declared;
}
