/**
 * Forwarding one request to the upstream and its reply back to the client, unchanged: the status,
 * the headers (all but hop-by-hop ones, and the encoding that fetch has already undone) and the
 * body, streamed chunk by chunk as it arrives, with a copy kept for the recording. The API key is
 * the client's (`Authorization`, `x-api-key`), else the proxy's environment's, and goes only to
 * the upstream.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { environmentValue } from '../config.js';
import { withoutVersion } from './wire/registry.js';

/** Request headers that belong to one connection, or that fetch sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
  'expect',
]);

/** Response headers not passed on: fetch has decoded the body, so its encoding and length changed. */
const RESPONSE_DROPPED = new Set([...HOP_BY_HOP, 'content-encoding']);

/** Reply headers the recording keeps: what a client reads besides the body. */
const KEPT_HEADERS = [
  'content-type',
  'retry-after',
  'retry-after-ms',
  'x-request-id',
  'request-id',
];

/** The upstream URL of a request: the upstream's path (`/v1` when it has none), then the call's. */
export function upstreamUrl(upstream: URL, path: string, search: string): URL {
  const url = new URL(upstream.href);
  const basePath = url.pathname.replace(/\/+$/, '');
  url.pathname = `${basePath === '' ? '/v1' : basePath}${withoutVersion(path)}`;
  url.search = search;
  return url;
}

/** An upstream as the recording names it: scheme, host and path, never credentials or a query. */
export const shownUpstream = (upstream: URL) =>
  `${upstream.origin}${upstream.pathname.replace(/\/+$/, '')}`;

/** The headers sent upstream: the client's, less hop-by-hop and faultline's own, plus a key if none. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  provider: 'openai' | 'anthropic',
): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-faultline-')) continue;
    if (Array.isArray(value)) for (const item of value) out.append(name, item);
    else out.set(name, value);
  }
  if (!out.has('authorization') && !out.has('x-api-key')) {
    if (provider === 'anthropic') {
      const key = environmentValue('ANTHROPIC_API_KEY');
      if (key) out.set('x-api-key', key);
    } else {
      const key = environmentValue('OPENAI_API_KEY');
      if (key) out.set('authorization', `Bearer ${key}`);
    }
  }
  return out;
}

/** The upstream's reply headers as passed to the client. */
export function clientHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    if (RESPONSE_DROPPED.has(name)) continue;
    if (name === 'set-cookie') out[name] = headers.getSetCookie();
    else out[name] = value;
  }
  return out;
}

/** The headers a recording keeps of a reply. */
export function keptHeaders(headers: Headers | Record<string, string>): Record<string, string> {
  const read = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] ?? null);
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = read(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

/** Resolves once the response can take more (drained) or is gone (closed). */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** What passing a reply through kept and how it ended. */
export interface PipeResult {
  /** The body as received, up to the recording limit. */
  body: Buffer;
  truncated: boolean;
  /** Set when the upstream's connection failed mid-body or the client went away. */
  error?: string;
}

/**
 * Streams an upstream body to the client as it arrives, keeping up to `limit` bytes. When the
 * upstream drops the connection the client's connection is dropped too, as it would have been.
 */
export async function pipeBody(
  body: ReadableStream<Uint8Array> | null,
  response: ServerResponse,
  limit: number,
): Promise<PipeResult> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let received = 0;
  let truncated = false;
  if (!body) {
    response.end();
    return { body: Buffer.alloc(0), truncated };
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (kept < limit) {
        const part = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        const room = limit - kept;
        chunks.push(part.byteLength > room ? part.subarray(0, room) : part);
        kept += Math.min(room, part.byteLength);
        if (part.byteLength > room) truncated = true;
      } else truncated = true;
      if (response.destroyed) {
        await reader.cancel();
        return {
          body: Buffer.concat(chunks),
          truncated,
          error: 'the client closed the connection before the reply ended',
        };
      }
      if (!response.write(value)) await drained(response);
    }
  } catch (error) {
    response.destroy();
    const reason =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.message
        : String(error);
    return {
      body: Buffer.concat(chunks),
      truncated,
      error: `the upstream connection dropped after ${received} bytes of the reply (${reason})`,
    };
  }
  response.end();
  return { body: Buffer.concat(chunks), truncated };
}

/** Why fetch could not reach the upstream, in a few words (`ECONNREFUSED`, a DNS failure). */
export function transportReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as (Error & { code?: string }) | undefined;
  if (cause?.code)
    return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? `: ${cause.message}` : ''}`;
  return cause?.message ?? error.message;
}
