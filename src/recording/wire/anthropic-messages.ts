/**
 * Anthropic Messages (`POST /v1/messages`). A request's `system` is a string or text blocks; its
 * messages hold text, `tool_use` (in assistant turns) and `tool_result` blocks (in user turns).
 * A stream is named events: `message_start`, content blocks with text or JSON deltas,
 * `message_delta` (stop reason, output tokens) and `message_stop`.
 */
import type { ToolCall } from '../../trace/model.js';
import { sseEvent, sseJson } from './sse.js';
import {
  argumentsText,
  asArray,
  asNumber,
  asObject,
  asString,
  contentText,
  replyId,
  type HistoryItem,
  type ReplyView,
  type WireApi,
} from './types.js';

/** The items of one message: its text (and calls), then each tool result as an item of its own. */
function readMessage(message: Record<string, unknown>): HistoryItem[] {
  const role = asString(message.role);
  if (role !== 'user' && role !== 'assistant') return [];
  if (typeof message.content === 'string') return [{ role, text: message.content }];
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const results: HistoryItem[] = [];
  for (const raw of asArray(message.content)) {
    const block = asObject(raw);
    if (!block) continue;
    if (block.type === 'text') texts.push(asString(block.text) ?? '');
    else if (block.type === 'tool_use') {
      const id = asString(block.id);
      toolCalls.push({
        ...(id ? { id } : {}),
        name: asString(block.name) ?? 'unknown',
        arguments: argumentsText(block.input ?? {}),
      });
    } else if (block.type === 'tool_result') {
      const callId = asString(block.tool_use_id);
      results.push({
        role: 'tool',
        text: contentText(block.content),
        toolResult: {
          ...(callId ? { callId } : {}),
          ...(block.is_error === true ? { isError: true } : {}),
        },
      });
    }
  }
  const text = texts.filter((part) => part.length > 0).join('\n');
  const own: HistoryItem[] =
    text.length > 0 || toolCalls.length > 0 || results.length === 0
      ? [{ role, text, ...(toolCalls.length > 0 ? { toolCalls } : {}) }]
      : [];
  // A user turn that returns tool results lists them before anything it adds.
  return role === 'user' ? [...results, ...own] : [...own, ...results];
}

function readContent(content: unknown): { text: string; toolCalls: ToolCall[] } {
  const [item] = readMessage({ role: 'assistant', content });
  return { text: item?.text ?? '', toolCalls: item?.toolCalls ?? [] };
}

function readStream(text: string): ReplyView {
  const reply: ReplyView = { text: '', toolCalls: [] };
  const blocks = new Map<number, { type: string; text: string; id?: string; name?: string }>();
  let stopped = false;
  for (const { value } of sseJson(text)) {
    const event = asObject(value);
    if (!event) continue;
    const type = asString(event.type);
    if (type === 'message_start') {
      const message = asObject(event.message);
      reply.id = asString(message?.id);
      reply.model = asString(message?.model);
      reply.inputTokens = asNumber(asObject(message?.usage)?.input_tokens);
      if (!reply.id) delete reply.id;
      if (!reply.model) delete reply.model;
      if (reply.inputTokens === undefined) delete reply.inputTokens;
    } else if (type === 'content_block_start') {
      const block = asObject(event.content_block);
      const id = asString(block?.id);
      const name = asString(block?.name);
      blocks.set(asNumber(event.index) ?? blocks.size, {
        type: asString(block?.type) ?? 'text',
        text: asString(block?.text) ?? '',
        ...(id ? { id } : {}),
        ...(name ? { name } : {}),
      });
    } else if (type === 'content_block_delta') {
      const block = blocks.get(asNumber(event.index) ?? -1);
      const delta = asObject(event.delta);
      if (block && delta) block.text += asString(delta.text) ?? asString(delta.partial_json) ?? '';
    } else if (type === 'message_delta') {
      const stop = asString(asObject(event.delta)?.stop_reason);
      if (stop) reply.finishReason = stop;
      const output = asNumber(asObject(event.usage)?.output_tokens);
      if (output !== undefined) reply.outputTokens = output;
    } else if (type === 'message_stop') stopped = true;
    else if (type === 'error') {
      const error = asObject(event.error);
      reply.error = asString(error?.message) ?? JSON.stringify(event);
    }
  }
  const ordered = [...blocks.entries()]
    .sort(([left], [right]) => left - right)
    .map(([, block]) => block);
  reply.text = ordered
    .filter((block) => block.type === 'text' && block.text.length > 0)
    .map((block) => block.text)
    .join('\n');
  reply.toolCalls = ordered
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({
      ...(block.id ? { id: block.id } : {}),
      name: block.name ?? 'unknown',
      arguments: block.text || '{}',
    }));
  if (!stopped && !reply.error) reply.error = 'the stream ended without message_stop';
  return reply;
}

function readWhole(text: string): ReplyView {
  const body = asObject(JSON.parse(text));
  if (!body) throw new Error('the body is not a JSON object');
  if (body.type === 'error' || (body.content === undefined && asObject(body.error))) {
    const error = asObject(body.error);
    return { text: '', toolCalls: [], error: asString(error?.message) ?? text };
  }
  if (!Array.isArray(body.content)) throw new Error('the body has no content list');
  const usage = asObject(body.usage);
  const id = asString(body.id);
  const model = asString(body.model);
  const stop = asString(body.stop_reason);
  const input = asNumber(usage?.input_tokens);
  const output = asNumber(usage?.output_tokens);
  return {
    ...readContent(body.content),
    ...(id ? { id } : {}),
    ...(model ? { model } : {}),
    ...(stop ? { finishReason: stop } : {}),
    ...(input !== undefined ? { inputTokens: input } : {}),
    ...(output !== undefined ? { outputTokens: output } : {}),
  };
}

/** Tool arguments as the object Anthropic sends (`{}` when they are not JSON). */
function inputOf(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return asObject(value) ?? {};
  } catch {
    return {};
  }
}

export const anthropicMessages: WireApi = {
  name: 'anthropic-messages',
  path: '/messages',
  provider: 'anthropic',
  readRequest(body) {
    const request = asObject(body) ?? {};
    const model = asString(request.model);
    const metadata = asObject(request.metadata);
    const declared = asString(metadata?.user_id);
    return {
      ...(model ? { model } : {}),
      stream: request.stream === true,
      system: contentText(request.system),
      items: asArray(request.messages).flatMap((raw) => {
        const message = asObject(raw);
        return message ? readMessage(message) : [];
      }),
      ...(declared ? { declaredAgent: declared } : {}),
    };
  },
  readReply: (text, streamed) => (streamed ? readStream(text) : readWhole(text)),
  writeReply(reply, options) {
    const id = replyId('msg_');
    const content: Record<string, unknown>[] = [];
    if (reply.text.length > 0 || reply.toolCalls.length === 0)
      content.push({ type: 'text', text: reply.text });
    for (const call of reply.toolCalls)
      content.push({
        type: 'tool_use',
        id: call.id ?? replyId('toolu_'),
        name: call.name,
        input: inputOf(call.arguments),
      });
    const stopReason = reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
    const usage = {
      input_tokens: options.inputTokens ?? 0,
      output_tokens: options.outputTokens ?? 0,
    };
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: options.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };
    if (!options.stream) return { contentType: 'application/json', body: JSON.stringify(message) };
    const event = (type: string, fields: Record<string, unknown>) =>
      sseEvent({ type, ...fields }, type);
    let body = event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 0 },
      },
    });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        body += event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        if (reply.text.length > 0)
          body += event('content_block_delta', {
            index,
            delta: { type: 'text_delta', text: reply.text },
          });
      } else {
        body += event('content_block_start', { index, content_block: { ...block, input: {} } });
        body += event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        });
      }
      body += event('content_block_stop', { index });
    });
    body += event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    body += event('message_stop', {});
    return { contentType: 'text/event-stream', body };
  },
  errorBody: (message, type) => ({ type: 'error', error: { type, message } }),
};
