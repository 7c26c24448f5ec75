/**
 * The wire APIs the proxy records, found by request path. Clients differ in where their base URL
 * ends (`…/v1` for OpenAI clients and the AI SDK, the bare host for Anthropic's SDKs), so the
 * version prefix is optional: `/v1/messages` and `/messages` are the same call.
 */
import { anthropicMessages } from './anthropic-messages.js';
import { openAiChat } from './openai-chat.js';
import { openAiResponses } from './openai-responses.js';
import type { WireApi, WireName } from './types.js';
import { trimEndOf } from '../../trace/text-limits.js';

const apis = new Map<string, WireApi>(
  [openAiChat, openAiResponses, anthropicMessages].map((api) => [api.path, api]),
);
const byName = new Map<WireName, WireApi>([...apis.values()].map((api) => [api.name, api]));

/** The path with a leading `/v1` taken off (`/v1/chat/completions` → `/chat/completions`). */
export const withoutVersion = (path: string) => (path.startsWith('/v1/') ? path.slice(3) : path);

/** The API a request path calls, or undefined for a path the proxy only forwards. */
export function wireApiFor(path: string): WireApi | undefined {
  return apis.get(trimEndOf(withoutVersion(path), '/'));
}

/** The API of a given name. */
export function wireApi(name: WireName): WireApi {
  return byName.get(name)!;
}

/** Every recorded API. */
export const wireApis = (): WireApi[] => [...apis.values()];
