/**
 * What the recorder reads from a model call and what replay writes back, whatever the wire API.
 * Each API (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages) is one module that
 * reads its requests and replies into these shapes and writes a reply of its own shape.
 *
 * Request and reply bodies are read tolerantly by hand rather than with schemas: the proxy must
 * forward any body the upstream accepts, so a field of an unexpected type is skipped, never an
 * error. Nothing here changes what is forwarded.
 */
import type { StepLogprobs, ToolCall } from '../../trace/model.js';

/** The APIs the proxy records. */
export type WireName = 'openai-chat' | 'openai-responses' | 'anthropic-messages';

/** One entry of a request's conversation. */
export interface HistoryItem {
  role: 'user' | 'assistant' | 'tool';
  /** The speaker's name where the message carries one (`name` in Chat Completions). */
  name?: string;
  text: string;
  toolCalls?: ToolCall[];
  /** For a tool's output: the call it answers. */
  toolResult?: { callId?: string; name?: string; isError?: boolean };
}

/** What the recorder reads of a request. */
export interface RequestView {
  model?: string;
  /** True when the client asked for a stream. */
  stream: boolean;
  /** Chat Completions: the client asked for usage in the stream (`stream_options`). */
  includeUsage?: boolean;
  /** The system prompt (system and developer messages, `instructions`), joined. */
  system: string;
  items: HistoryItem[];
  /** An agent name the body declares (`metadata.agent`, `user`). */
  declaredAgent?: string;
}

/** What the recorder reads of a reply. */
export interface ReplyView {
  text: string;
  toolCalls: ToolCall[];
  id?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  finishReason?: string;
  /** The reply's token log probabilities, summarised, where the body carries them. */
  logprobs?: StepLogprobs;
  /** An error the body reports (an error object, an error event in a stream). */
  error?: string;
}

/** A reply the proxy writes itself: a fix, or a recorded reply in the other streaming mode. */
export interface ReplyContent {
  text: string;
  toolCalls: ToolCall[];
}

/** How a written reply is shaped. */
export interface WriteOptions {
  stream: boolean;
  model: string;
  includeUsage?: boolean;
  inputTokens?: number;
  outputTokens?: number;
}

/** One wire API. */
export interface WireApi {
  name: WireName;
  /** The request path after the version prefix, e.g. `/chat/completions`. */
  path: string;
  /** Whose key the call needs when the client sends none. */
  provider: 'openai' | 'anthropic';
  readRequest(body: unknown): RequestView;
  /** Reads a whole reply body (a stream's whole text when `streamed`). */
  readReply(text: string, streamed: boolean): ReplyView;
  writeReply(reply: ReplyContent, options: WriteOptions): { contentType: string; body: string };
  /** An error body the API's clients read (`{error: {message}}` and the like). */
  errorBody(message: string, type: string): unknown;
}

/** A plain object, or undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A string, or undefined. */
export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** A number, or undefined. */
export const asNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** An array (empty when the value is none). */
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Tool arguments as text, as providers send them (objects are written as JSON). */
export const argumentsText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/**
 * Text of a message's content: a string, or the text of its parts (`{type: 'text', text}`,
 * `input_text`, `output_text`); images and files are left out.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (typeof part === 'string' ? part : (asString(asObject(part)?.text) ?? '')))
    .filter((text) => text.length > 0)
    .join('\n');
}

/** An agent name declared in a body's `metadata` (`agent`, `agent_name`, `faultline_agent`). */
export function metadataAgent(metadata: unknown): string | undefined {
  const object = asObject(metadata);
  if (!object) return undefined;
  for (const key of ['faultline_agent', 'agent', 'agent_name'])
    if (typeof object[key] === 'string' && object[key].trim()) return object[key].trim();
  return undefined;
}

/** A short reason a body could not be read, for the recording. */
export function unreadable(what: string, error: unknown): string {
  return `${what}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
}

/** A random id in a provider's style (`chatcmpl-…`, `msg_…`) for replies the proxy writes. */
export function replyId(prefix: string): string {
  return `${prefix}${Math.random().toString(36).slice(2, 12)}${Date.now().toString(36)}`;
}
