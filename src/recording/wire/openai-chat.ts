/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), the API most agent frameworks speak
 * (AG2, CrewAI through LiteLLM, LangChain's ChatOpenAI, the AI SDK's `.chat()` models and every
 * OpenAI-compatible server). Streams are `data: {chunk}` lines ending with `data: [DONE]`.
 */
import { readLogprobs, summariseLogprobs, type TokenLogprob } from '../../trace/logprobs.js';
import type { ToolCall } from '../../trace/model.js';
import { sseEvent, sseJson } from './sse.js';
import {
  argumentsText,
  asArray,
  asNumber,
  asObject,
  asString,
  contentText,
  metadataAgent,
  replyId,
  type HistoryItem,
  type ReplyView,
  type WireApi,
} from './types.js';

function readMessage(message: Record<string, unknown>): HistoryItem | undefined {
  const role = asString(message.role);
  const name = asString(message.name);
  const text = contentText(message.content);
  if (role === 'user') return { role: 'user', text, ...(name ? { name } : {}) };
  if (role === 'assistant') {
    const toolCalls = asArray(message.tool_calls).flatMap((raw): ToolCall[] => {
      const call = asObject(raw);
      const fn = asObject(call?.function);
      if (!call || !fn) return [];
      const id = asString(call.id);
      return [
        {
          ...(id ? { id } : {}),
          name: asString(fn.name) ?? 'unknown',
          arguments: argumentsText(fn.arguments),
        },
      ];
    });
    const legacy = asObject(message.function_call);
    if (legacy)
      toolCalls.push({
        name: asString(legacy.name) ?? 'unknown',
        arguments: argumentsText(legacy.arguments),
      });
    return {
      role: 'assistant',
      text,
      ...(name ? { name } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  }
  if (role === 'tool' || role === 'function') {
    const callId = asString(message.tool_call_id);
    return {
      role: 'tool',
      text,
      toolResult: { ...(callId ? { callId } : {}), ...(name ? { name } : {}) },
    };
  }
  return undefined;
}

/** Accumulates a stream's chunks into the reply they spell. */
function readStream(text: string): ReplyView {
  const reply: ReplyView = { text: '', toolCalls: [] };
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  // Each chunk carries the log probabilities of its own tokens: summarised over the whole reply.
  const tokens: TokenLogprob[] = [];
  for (const { value } of sseJson(text)) {
    const chunk = asObject(value);
    if (!chunk) continue;
    const error = asObject(chunk.error);
    if (error) reply.error = asString(error.message) ?? JSON.stringify(error);
    reply.id ??= asString(chunk.id);
    reply.model ??= asString(chunk.model);
    const usage = asObject(chunk.usage);
    if (usage) {
      reply.inputTokens = asNumber(usage.prompt_tokens) ?? reply.inputTokens;
      reply.outputTokens = asNumber(usage.completion_tokens) ?? reply.outputTokens;
    }
    const choice = asObject(asArray(chunk.choices)[0]);
    if (!choice) continue;
    const finish = asString(choice.finish_reason);
    if (finish) reply.finishReason = finish;
    tokens.push(...chunkTokens(choice.logprobs));
    const delta = asObject(choice.delta);
    if (!delta) continue;
    const content = asString(delta.content);
    if (content) reply.text += content;
    for (const raw of asArray(delta.tool_calls)) {
      const part = asObject(raw);
      if (!part) continue;
      const index = asNumber(part.index) ?? calls.size;
      const call = calls.get(index) ?? { name: '', arguments: '' };
      const id = asString(part.id);
      if (id) call.id = id;
      const fn = asObject(part.function);
      call.name += asString(fn?.name) ?? '';
      call.arguments += asString(fn?.arguments) ?? '';
      calls.set(index, call);
    }
  }
  reply.toolCalls = [...calls.entries()]
    .sort(([left], [right]) => left - right)
    .map(([, call]) => ({
      ...(call.id ? { id: call.id } : {}),
      name: call.name || 'unknown',
      arguments: call.arguments,
    }));
  const logprobs = summariseLogprobs(tokens);
  if (logprobs) reply.logprobs = logprobs;
  return reply;
}

/** The tokens of one stream chunk's `logprobs` (`{content: [{token, logprob}]}`), or none. */
function chunkTokens(value: unknown): TokenLogprob[] {
  return asArray(asObject(value)?.content).flatMap((raw) => {
    const token = asObject(raw);
    const text = asString(token?.token);
    const logprob = asNumber(token?.logprob);
    return text !== undefined && logprob !== undefined ? [{ token: text, logprob }] : [];
  });
}

function readWhole(text: string): ReplyView {
  const body = asObject(JSON.parse(text));
  if (!body) throw new Error('the body is not a JSON object');
  const error = asObject(body.error);
  if (error)
    return { text: '', toolCalls: [], error: asString(error.message) ?? JSON.stringify(error) };
  const choice = asObject(asArray(body.choices)[0]);
  const message = asObject(choice?.message);
  if (!message) throw new Error('the body has no choices[0].message');
  const item = readMessage({ ...message, role: 'assistant' });
  const usage = asObject(body.usage);
  const id = asString(body.id);
  const model = asString(body.model);
  const finish = asString(choice?.finish_reason);
  const input = asNumber(usage?.prompt_tokens);
  const output = asNumber(usage?.completion_tokens);
  const logprobs = readLogprobs(choice?.logprobs);
  return {
    text: item?.text ?? '',
    toolCalls: item?.toolCalls ?? [],
    ...(id ? { id } : {}),
    ...(model ? { model } : {}),
    ...(finish ? { finishReason: finish } : {}),
    ...(input !== undefined ? { inputTokens: input } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
    ...(logprobs ? { logprobs } : {}),
  };
}

export const openAiChat: WireApi = {
  name: 'openai-chat',
  path: '/chat/completions',
  provider: 'openai',
  readRequest(body) {
    const request = asObject(body) ?? {};
    const system: string[] = [];
    const items: HistoryItem[] = [];
    for (const raw of asArray(request.messages)) {
      const message = asObject(raw);
      if (!message) continue;
      const role = asString(message.role);
      if (role === 'system' || role === 'developer') system.push(contentText(message.content));
      else {
        const item = readMessage(message);
        if (item) items.push(item);
      }
    }
    const model = asString(request.model);
    const declared = metadataAgent(request.metadata) ?? asString(request.user);
    const streamOptions = asObject(request.stream_options);
    return {
      ...(model ? { model } : {}),
      stream: request.stream === true,
      ...(streamOptions?.include_usage === true ? { includeUsage: true } : {}),
      system: system.join('\n\n'),
      items,
      ...(declared ? { declaredAgent: declared } : {}),
    };
  },
  readReply: (text, streamed) => (streamed ? readStream(text) : readWhole(text)),
  writeReply(reply, options) {
    const id = replyId('chatcmpl-');
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = reply.toolCalls.map((call, index) => ({
      index,
      id: call.id ?? replyId('call_'),
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const usage = {
      prompt_tokens: options.inputTokens ?? 0,
      completion_tokens: options.outputTokens ?? 0,
      total_tokens: (options.inputTokens ?? 0) + (options.outputTokens ?? 0),
    };
    const base = { id, object: 'chat.completion', created, model: options.model };
    if (!options.stream) {
      const message = {
        role: 'assistant',
        content: reply.text.length > 0 || toolCalls.length === 0 ? reply.text : null,
        ...(toolCalls.length > 0
          ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) }
          : {}),
      };
      return {
        contentType: 'application/json',
        body: JSON.stringify({
          ...base,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
          usage,
        }),
      };
    }
    const chunk = (delta: unknown, finish: string | null) =>
      sseEvent({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    let body = chunk({ role: 'assistant', content: '' }, null);
    if (reply.text.length > 0) body += chunk({ content: reply.text }, null);
    for (const call of toolCalls) body += chunk({ tool_calls: [call] }, null);
    body += chunk({}, finishReason);
    if (options.includeUsage)
      body += sseEvent({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    body += sseEvent('[DONE]');
    return { contentType: 'text/event-stream', body };
  },
  errorBody: (message, type) => ({ error: { message, type, param: null, code: null } }),
};
