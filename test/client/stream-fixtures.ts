/**
 * Chat stream chunks in vLLM's shapes, for the reader's tests. Chunks are serialised with `exclude_unset`
 * (`vllm/entrypoints/openai/serving_chat.py`: `chunk.model_dump_json(exclude_unset=True)`), so a delta
 * holds only the fields its parser set:
 * - reasoning: `DeltaMessage(reasoning=...)`, `vllm/entrypoints/openai/engine/protocol.py` (commit
 *   040a2cc2a629, `reasoning`); releases before vllm-project/vllm PR #27752 name it `reasoning_content`
 *   (`vllm/entrypoints/openai/protocol.py`), removed from the output in 0.16.0 (PR #33402).
 * - tool calls: the first delta of a call `DeltaToolCall(index, type="function", id, function={name})`,
 *   then `DeltaToolCall(index, function={arguments})` per piece
 *   (`vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py`, commit 00854322d230); the last chunk's
 *   finish_reason is `tool_calls`.
 * - the role chunk first, `{"role":"assistant","content":""}` (shared/reference/vllm-protocol-and-metrics.md §2.1).
 */

const head = `"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"m"`;

export const chatChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: {${head},"choices":[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`;

export const roleChunk = () => chatChunk({ role: "assistant", content: "" });

export const usageChunk = (
  prompt: number,
  completion: number,
  details: { cached?: number; reasoning?: number } = {},
) => {
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    total_tokens: prompt + completion,
    completion_tokens: completion,
  };
  if (details.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: details.cached };
  if (details.reasoning !== undefined)
    usage.completion_tokens_details = { reasoning_tokens: details.reasoning };
  return `data: {${head},"choices":[],"usage":${JSON.stringify(usage)}}\n\n`;
};

export const done = "data: [DONE]\n\n";

/** A reasoning answer: the role chunk, `thinking` reasoning chunks in `field`, then `answer` content chunks. */
export function reasoningStream(
  field: "reasoning" | "reasoning_content",
  thinking: number,
  answer: number,
  usage: { reasoning?: number } = {},
): string {
  let text = roleChunk();
  for (let index = 0; index < thinking; index++) text += chatChunk({ [field]: ` think${index}` });
  for (let index = 0; index < answer; index++) {
    text += chatChunk({ content: ` word${index}` }, index === answer - 1 ? "stop" : null);
  }
  return text + usageChunk(20, thinking + answer, usage) + done;
}

/** One tool call in hermes_tool_parser's deltas: the name first, then the arguments in `pieces`. */
export function toolCallChunks(index: number, id: string, name: string, pieces: string[]): string {
  let text = chatChunk({ tool_calls: [{ id, type: "function", index, function: { name } }] });
  for (const piece of pieces) text += chatChunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  return text;
}
