/**
 * The OpenAI Responses API (`POST /v1/responses`), which the OpenAI Agents SDK and the AI SDK's
 * default OpenAI models speak. A request's history is `input` (a string, or messages and
 * `function_call` / `function_call_output` items) under `instructions`; a stream is named events
 * ending with `response.completed`, whose `response` is the whole reply. Writing a reply is
 * openai-responses-write.ts.
 */
import type { ToolCall } from '../../trace/model.js';
import { sseJson } from './sse.js';
import { writeResponsesReply } from './openai-responses-write.js';
import {
  argumentsText,
  asArray,
  asNumber,
  asObject,
  asString,
  contentText,
  metadataAgent,
  type HistoryItem,
  type ReplyView,
  type WireApi,
} from './types.js';

/** A finished response object (the body, or a stream's `response.completed`). */
function readResponse(response: Record<string, unknown>): ReplyView {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const raw of asArray(response.output)) {
    const item = asObject(raw);
    if (!item) continue;
    if (item.type === 'message') texts.push(contentText(item.content));
    else if (item.type === 'function_call') {
      const id = asString(item.call_id);
      toolCalls.push({
        ...(id ? { id } : {}),
        name: asString(item.name) ?? 'unknown',
        arguments: argumentsText(item.arguments),
      });
    }
  }
  const usage = asObject(response.usage);
  const error = asObject(response.error);
  const id = asString(response.id);
  const model = asString(response.model);
  const status = asString(response.status);
  const input = asNumber(usage?.input_tokens);
  const output = asNumber(usage?.output_tokens);
  const errorText = error ? (asString(error.message) ?? JSON.stringify(error)) : undefined;
  return {
    text: texts.filter((text) => text.length > 0).join('\n'),
    toolCalls,
    ...(id ? { id } : {}),
    ...(model ? { model } : {}),
    ...(status ? { finishReason: status } : {}),
    ...(input !== undefined ? { inputTokens: input } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
    ...(errorText ? { error: errorText } : {}),
  };
}

function readStream(text: string): ReplyView {
  let deltas = '';
  let errorText: string | undefined;
  for (const { value } of sseJson(text)) {
    const event = asObject(value);
    if (!event) continue;
    const type = asString(event.type);
    if (
      type === 'response.completed' ||
      type === 'response.incomplete' ||
      type === 'response.failed'
    ) {
      const response = asObject(event.response);
      if (response) return readResponse(response);
    } else if (type === 'response.output_text.delta') deltas += asString(event.delta) ?? '';
    else if (type === 'error') errorText = asString(event.message) ?? JSON.stringify(event);
  }
  // The stream ended before its final event: what it had said so far.
  return {
    text: deltas,
    toolCalls: [],
    error: errorText ?? 'the stream ended without response.completed',
  };
}

function readInput(input: unknown, system: string[]): HistoryItem[] {
  if (typeof input === 'string') return [{ role: 'user', text: input }];
  const items: HistoryItem[] = [];
  for (const raw of asArray(input)) {
    const item = asObject(raw);
    if (!item) continue;
    const type = asString(item.type) ?? 'message';
    if (type === 'message') {
      const role = asString(item.role);
      if (role === 'system' || role === 'developer') system.push(contentText(item.content));
      else if (role === 'user' || role === 'assistant')
        items.push({ role, text: contentText(item.content) });
    } else if (type === 'function_call') {
      const id = asString(item.call_id);
      const call = {
        ...(id ? { id } : {}),
        name: asString(item.name) ?? 'unknown',
        arguments: argumentsText(item.arguments),
      };
      // Calls that follow the assistant's message (or each other) belong to the same turn.
      const last = items.at(-1);
      if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
      else items.push({ role: 'assistant', text: '', toolCalls: [call] });
    } else if (type === 'function_call_output') {
      const callId = asString(item.call_id);
      items.push({
        role: 'tool',
        text: typeof item.output === 'string' ? item.output : contentText(item.output),
        toolResult: callId ? { callId } : {},
      });
    }
  }
  return items;
}

export const openAiResponses: WireApi = {
  name: 'openai-responses',
  path: '/responses',
  provider: 'openai',
  readRequest(body) {
    const request = asObject(body) ?? {};
    const system: string[] = [];
    const instructions = asString(request.instructions);
    if (instructions) system.push(instructions);
    const items = readInput(request.input, system);
    const model = asString(request.model);
    const declared = metadataAgent(request.metadata) ?? asString(request.user);
    return {
      ...(model ? { model } : {}),
      stream: request.stream === true,
      system: system.join('\n\n'),
      items,
      ...(declared ? { declaredAgent: declared } : {}),
    };
  },
  readReply(text, streamed) {
    if (streamed) return readStream(text);
    const body = asObject(JSON.parse(text));
    if (!body) throw new Error('the body is not a JSON object');
    if (body.output === undefined && asObject(body.error))
      return { text: '', toolCalls: [], error: asString(asObject(body.error)?.message) ?? text };
    if (!Array.isArray(body.output)) throw new Error('the body has no output list');
    return readResponse(body);
  },
  writeReply: writeResponsesReply,
  errorBody: (message, type) => ({ error: { message, type, param: null, code: null } }),
};
