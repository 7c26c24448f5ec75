/**
 * Forwarding one request to the upstream and its reply back to the client, byte for byte: the
 * status, the headers (all but hop-by-hop ones) and the body, compressed or not, written to the
 * client chunk by chunk as it arrives, with a copy kept (and decoded) for the recording. Node's
 * own HTTP client carries it, on kept-alive connections. The API key is the client's
 * (`Authorization`, `x-api-key`), else the proxy's environment's, and goes only to the upstream.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { environmentValue } from '../../config.js';
import { withoutVersion } from '../wire/registry.js';
import { trimEndOf } from '../../trace/text-limits.js';

/** Headers that belong to one connection, not to the message. */
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
]);

/** Request headers not passed on: the connection's, the proxy's own host, and faultline's. */
const REQUEST_DROPPED = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect']);

/** Reply headers the recording keeps: what a client reads besides the body. */
const KEPT_HEADERS = [
  'content-type',
  'retry-after',
  'retry-after-ms',
  'x-request-id',
  'request-id',
];

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

/** The upstream URL of a request: the upstream's path (`/v1` when it has none), then the call's. */
export function upstreamUrl(upstream: URL, path: string, search: string): URL {
  const url = new URL(upstream.href);
  const basePath = trimEndOf(url.pathname, '/');
  url.pathname = `${basePath === '' ? '/v1' : basePath}${withoutVersion(path)}`;
  url.search = search;
  return url;
}

/** An upstream as the recording names it: scheme, host and path, never credentials or a query. */
export const shownUpstream = (upstream: URL) =>
  `${upstream.origin}${trimEndOf(upstream.pathname, '/')}`;

/** The headers sent upstream: the client's, less hop-by-hop and faultline's own, plus a key if none. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  provider: 'openai' | 'anthropic',
  bodyLength: number,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || REQUEST_DROPPED.has(name) || name.startsWith('x-faultline-'))
      continue;
    out[name] = value;
  }
  if (bodyLength > 0) out['content-length'] = bodyLength;
  if (out.authorization === undefined && out['x-api-key'] === undefined) {
    if (provider === 'anthropic') {
      const key = environmentValue('ANTHROPIC_API_KEY');
      if (key) out['x-api-key'] = key;
    } else {
      const key = environmentValue('OPENAI_API_KEY');
      if (key) out.authorization = `Bearer ${key}`;
    }
  }
  return out;
}

/** The upstream's reply headers as passed to the client: every one but hop-by-hop, as sent. */
export function clientHeaders(response: IncomingMessage): string[] {
  const raw = response.rawHeaders;
  const out: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2)
    if (!HOP_BY_HOP.has(raw[index]!.toLowerCase())) out.push(raw[index]!, raw[index + 1]!);
  return out;
}

/** The headers a recording keeps of a reply. */
export function keptHeaders(
  headers: IncomingHttpHeaders | Record<string, string>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') kept[name] = value;
  }
  return kept;
}

/** Why the upstream could not be reached, in a few words (`ECONNREFUSED`, a DNS failure). */
export function transportReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * Why a call got no reply: the upstream could not be reached (refused, no such host, a failed
 * handshake: the client gets a 502 it can read), it took the whole request and closed the
 * connection without replying (`socket hang up`, a reset: the client's connection is dropped too,
 * as a direct call would have seen), or the client went away first.
 */
export type UpstreamFailure = 'unreachable' | 'dropped' | 'client-gone';

/** A request on its way upstream. */
export interface SentRequest {
  /** The reply, once its headers have come. */
  reply: Promise<IncomingMessage>;
  /** Stops the request (the client went away). */
  abort: () => void;
  /** Why `reply` failed with `error`. */
  failure: (error: unknown) => UpstreamFailure;
}

/** Sends a request upstream; resolves with the reply once its headers have come. */
export function sendUpstream(
  target: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
): SentRequest {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  let current: ClientRequest | undefined;
  let aborted = false;
  // Whether the last attempt's request was written whole on a connection.
  let written = false;
  const attempt = (pooled: boolean) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      written = false;
      const request = send(target, {
        method,
        headers,
        // A retry goes on a connection of its own.
        agent: pooled ? (target.protocol === 'https:' ? httpsAgent : httpAgent) : false,
      });
      current = request;
      request.once('finish', () => {
        written = true;
      });
      request.once('response', resolve);
      request.once('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the upstream had just closed fails at once: that is no answer
        // from the upstream, so the request is sent again on a new connection (Node's advice).
        if (
          pooled &&
          !aborted &&
          request.reusedSocket &&
          (error.code === 'ECONNRESET' || error.code === 'EPIPE')
        )
          attempt(false).then(resolve, reject);
        else reject(error);
      });
      request.end(body.byteLength > 0 ? body : undefined);
    });
  return {
    reply: attempt(true),
    abort: () => {
      aborted = true;
      current?.destroy();
    },
    failure: (error) => {
      if (aborted) return 'client-gone';
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      return written && (code === 'ECONNRESET' || code === 'EPIPE') ? 'dropped' : 'unreachable';
    },
  };
}

/**
 * What a call that got no reply records, and what its client gets: a 502 with `message` where the
 * upstream could not be reached, else its connection dropped.
 */
export function failureMessage(failure: UpstreamFailure, origin: string, error: unknown): string {
  const reason = transportReason(error);
  if (failure === 'client-gone')
    return `the client closed the connection before the upstream replied (${reason})`;
  if (failure === 'dropped')
    return `faultline proxy: the upstream ${origin} dropped the connection before replying (${reason})`;
  return `faultline proxy: the upstream ${origin} could not be reached (${reason})`;
}

/** What passing a reply through kept and how it ended. */
export interface PipeResult {
  /** The body as received (still encoded, if the upstream compressed it), up to the limit. */
  body: Buffer;
  truncated: boolean;
  /** Set when the upstream's connection failed mid-body or the client went away. */
  error?: string;
}

/**
 * Passes an upstream reply to the client as it arrives, keeping up to `limit` bytes of its body.
 * When the upstream drops the connection, the client's is dropped too, as it would have been.
 */
export function pipeReply(
  reply: IncomingMessage,
  response: ServerResponse,
  limit: number,
): Promise<PipeResult> {
  response.writeHead(reply.statusCode ?? 502, reply.statusMessage, clientHeaders(reply));
  // Headers go out at once, so a client sees a stream start even before its first event.
  response.flushHeaders();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    let truncated = false;
    let settled = false;
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      resolve({ body: Buffer.concat(chunks), truncated, ...(error ? { error } : {}) });
    };
    reply.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
      if (kept < limit) {
        const room = limit - kept;
        chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
        kept += Math.min(room, chunk.byteLength);
        if (chunk.byteLength > room) truncated = true;
      } else truncated = true;
      if (!response.write(chunk)) reply.pause();
    });
    response.on('drain', () => reply.resume());
    reply.on('end', () => {
      response.end();
      settle();
    });
    reply.on('error', () => undefined); // reported on close below
    reply.on('close', () => {
      if (reply.complete) return;
      response.destroy();
      settle(`the upstream connection dropped after ${received} bytes of the reply`);
    });
    response.on('close', () => {
      if (response.writableFinished) return;
      reply.destroy();
      settle('the client closed the connection before the reply ended');
    });
  });
}

/** A recorded body decoded as the client read it (gzip, deflate and Brotli undone). */
export function decodedBody(body: Buffer, encoding: string | undefined): string {
  const name = (encoding ?? '').trim().toLowerCase();
  if (!name || name === 'identity' || body.byteLength === 0) return body.toString('utf8');
  if (name === 'gzip' || name === 'x-gzip') return gunzipSync(body).toString('utf8');
  if (name === 'br') return brotliDecompressSync(body).toString('utf8');
  if (name === 'deflate') {
    try {
      return inflateSync(body).toString('utf8');
    } catch {
      return inflateRawSync(body).toString('utf8');
    }
  }
  throw new Error(`the reply is encoded as ${name}, which the recorder cannot read`);
}
