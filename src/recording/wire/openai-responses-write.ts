/**
 * Writing a reply in the OpenAI Responses API's shape (`POST /v1/responses`): a response object,
 * or, for a stream, the named events from `response.created` to `response.completed` that a
 * client of the API reads.
 */
import { sseEvent } from './sse.js';
import { replyId, type ReplyContent, type WriteOptions } from './types.js';

/** The parts of one written reply that its body and its stream events share. */
interface ReplyParts {
  reply: ReplyContent;
  messageId: string;
  /** The message's one content part. */
  text: { type: string; text: string; annotations: unknown[] };
  output: Record<string, unknown>[];
  /** The response object in a given status, with the given output items. */
  response: (status: string, items: unknown[], withUsage: boolean) => Record<string, unknown>;
}

/** The reply's output items: a message (when it has text or no tool calls), then its calls. */
function replyOutput(
  reply: ReplyContent,
  messageId: string,
  text: ReplyParts['text'],
): Record<string, unknown>[] {
  const output: Record<string, unknown>[] = [];
  if (reply.text.length > 0 || reply.toolCalls.length === 0)
    output.push({
      id: messageId,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [text],
    });
  for (const call of reply.toolCalls)
    output.push({
      id: replyId('fc_'),
      type: 'function_call',
      status: 'completed',
      call_id: call.id ?? replyId('call_'),
      name: call.name,
      arguments: call.arguments,
    });
  return output;
}

/** Writes one numbered stream event. */
type EventWriter = (type: string, fields: Record<string, unknown>) => string;

/** The events that stream a message item: its content part opened, its text, closed. */
function messageEvents(
  parts: ReplyParts,
  item: Record<string, unknown>,
  outputIndex: number,
  event: EventWriter,
): string {
  const { reply, messageId, text } = parts;
  const at = { item_id: messageId, output_index: outputIndex, content_index: 0 };
  let body = event('response.output_item.added', {
    output_index: outputIndex,
    item: { ...item, status: 'in_progress', content: [] },
  });
  body += event('response.content_part.added', { ...at, part: { ...text, text: '' } });
  if (reply.text.length > 0)
    body += event('response.output_text.delta', { ...at, delta: reply.text, logprobs: [] });
  body += event('response.output_text.done', { ...at, text: reply.text, logprobs: [] });
  body += event('response.content_part.done', { ...at, part: text });
  return body;
}

/** The events that stream a function call item: added, its arguments, done. */
function functionCallEvents(
  item: Record<string, unknown>,
  outputIndex: number,
  event: EventWriter,
): string {
  let body = event('response.output_item.added', {
    output_index: outputIndex,
    item: { ...item, status: 'in_progress', arguments: '' },
  });
  body += event('response.function_call_arguments.delta', {
    item_id: item.id,
    output_index: outputIndex,
    delta: item.arguments,
  });
  body += event('response.function_call_arguments.done', {
    item_id: item.id,
    output_index: outputIndex,
    arguments: item.arguments,
  });
  return body;
}

/** The whole reply as a stream of events, numbered in order. */
function streamBody(parts: ReplyParts): string {
  const { output, response } = parts;
  let sequence = 0;
  const event: EventWriter = (type, fields) =>
    sseEvent({ type, sequence_number: sequence++, ...fields }, type);
  let body = event('response.created', { response: response('in_progress', [], false) });
  body += event('response.in_progress', { response: response('in_progress', [], false) });
  output.forEach((item, outputIndex) => {
    body +=
      item.type === 'message'
        ? messageEvents(parts, item, outputIndex, event)
        : functionCallEvents(item, outputIndex, event);
    body += event('response.output_item.done', { output_index: outputIndex, item });
  });
  body += event('response.completed', { response: response('completed', output, true) });
  return body;
}

/** A reply written as the Responses API would send it: a JSON body, or an event stream. */
export function writeResponsesReply(
  reply: ReplyContent,
  options: WriteOptions,
): { contentType: string; body: string } {
  const id = replyId('resp_');
  const createdAt = Math.floor(Date.now() / 1000);
  const messageId = replyId('msg_');
  const text = { type: 'output_text', text: reply.text, annotations: [] };
  const output = replyOutput(reply, messageId, text);
  const usage = {
    input_tokens: options.inputTokens ?? 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: options.outputTokens ?? 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: (options.inputTokens ?? 0) + (options.outputTokens ?? 0),
  };
  const response = (status: string, items: unknown[], withUsage: boolean) => ({
    id,
    object: 'response',
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: null,
    model: options.model,
    output: items,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: withUsage ? usage : null,
  });
  if (!options.stream)
    return {
      contentType: 'application/json',
      body: JSON.stringify(response('completed', output, true)),
    };
  const body = streamBody({ reply, messageId, text, output, response });
  return { contentType: 'text/event-stream', body };
}
