/**
 * The recording proxy: a local HTTP server that forwards OpenAI Chat Completions, the OpenAI
 * Responses API and Anthropic Messages to an upstream, unchanged for the client, and records every
 * call as a step of a run (record/recorder.ts). Any other path is forwarded without being recorded, to the
 * Anthropic upstream when it carries Anthropic's headers or a `/messages` path. In
 * replay, a responder may answer a call itself (from the recording, or with a fix) instead.
 *
 * It listens on 127.0.0.1 by default; guard.ts decides who may use it (no other site's page).
 * A recorded call is call.ts (its reply passed through in reply.ts, response corruption in
 * inject.ts); the settings and the interfaces of what plugs in are types.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, UserError } from '../../errors.js';
import { isWildcard } from '../../server/auth.js';
import {
  failureMessage,
  pipeReply,
  sendUpstream,
  shownUpstream,
  upstreamHeaders,
  upstreamUrl,
} from './forward.js';
import { proxyGuard } from './guard.js';
import { RunClock } from '../record/identify.js';
import { recordCall } from './call.js';
import { providerOf, readBody, sendJson } from './http.js';
import type { ProxyContext, ProxyOptions, RunningProxy } from './types.js';
import { wireApiFor } from '../wire/registry.js';

export { TOKEN_HEADER } from './guard.js';
export type {
  Answer,
  InjectedReply,
  Injector,
  ProxiedCall,
  ProxyOptions,
  Responder,
  RunningProxy,
} from './types.js';

/** A checked upstream URL. */
export function parseUpstream(value: string, flag = '--upstream'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UserError(`${flag} must be a URL such as https://api.openai.com/v1, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UserError(`${flag} must be an http or https URL, got "${value}"`);
  return url;
}

/**
 * Forwards a request the proxy does not record (a model list, embeddings, Anthropic's token
 * count) to its provider's upstream, with that provider's key rules.
 */
async function forwardOnly(
  context: ProxyContext,
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer,
  url: URL,
) {
  const provider = providerOf(request, url.pathname);
  const base = provider === 'anthropic' ? context.anthropicUpstream : context.upstream;
  const target = upstreamUrl(base, url.pathname, url.search);
  const sent = sendUpstream(
    target,
    request.method ?? 'GET',
    upstreamHeaders(request.headers, provider, body.byteLength),
    body,
  );
  response.on('close', () => {
    if (!response.writableFinished) sent.abort();
  });
  let reply: IncomingMessage;
  try {
    reply = await sent.reply;
  } catch (error) {
    const failure = sent.failure(error);
    if (failure === 'unreachable')
      sendJson(response, 502, {
        error: {
          message: failureMessage(failure, base.origin, error),
          type: 'upstream_unreachable',
        },
      });
    else response.destroy();
    return;
  }
  await pipeReply(reply, response, 0);
}

/** Answers one request: refused, forwarded as it is, or recorded as a model call. */
async function handle(
  context: ProxyContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { maxRequest } = context;
  const refused = context.refusal(request);
  if (refused) {
    request.resume();
    sendJson(response, refused.status, {
      error: { message: refused.message, type: 'faultline_proxy' },
    });
    return;
  }
  const url = new URL(request.url ?? '/', 'http://proxy.invalid');
  const body = await readBody(request, maxRequest);
  if (!body) {
    sendJson(response, 413, {
      error: {
        message: `faultline proxy: the request body is larger than ${Math.round(maxRequest / 1024 / 1024)} MB`,
        type: 'faultline_proxy',
      },
    });
    return;
  }
  const api = request.method === 'POST' ? wireApiFor(url.pathname) : undefined;
  let parsed: unknown;
  if (api) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined; // not a call the recorder can read: the upstream says what is wrong
    }
  }
  if (!api || parsed === undefined) {
    await forwardOnly(context, request, response, body, url);
    return;
  }
  await recordCall(context, {
    request,
    response,
    body,
    url,
    api,
    view: api.readRequest(parsed),
    parsed,
  });
}

/**
 * The variables that point a system's model clients at a running proxy: the OpenAI SDKs, LiteLLM
 * (CrewAI) and older OpenAI clients (which read OPENAI_API_BASE), and the Anthropic SDKs.
 */
export function clientEnvironment(proxyUrl: string): NodeJS.ProcessEnv {
  return {
    OPENAI_BASE_URL: `${proxyUrl}/v1`,
    OPENAI_API_BASE: `${proxyUrl}/v1`,
    ANTHROPIC_BASE_URL: proxyUrl,
  };
}

/** Starts the proxy; resolves once it listens. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const upstream = parseUpstream(options.upstream);
  const anthropicUpstream = options.anthropicUpstream
    ? parseUpstream(options.anthropicUpstream, '--anthropic-upstream')
    : upstream;
  const log = options.log ?? (() => {});
  // Known once listening; the Host check compares a named port with it.
  const bound: { port?: number } = {};
  const context: ProxyContext = {
    options,
    upstream,
    anthropicUpstream,
    clock: new RunClock({ gapMs: options.runGapMs ?? 30_000 }),
    log,
    maxRequest: options.maxRequestBytes ?? 32 * 1024 * 1024,
    recordLimit: options.recordLimitBytes ?? 8 * 1024 * 1024,
    refusal: proxyGuard(host, options.token, () => bound.port),
  };

  const server = createServer((request, response) => {
    handle(context, request, response).catch((error: unknown) => {
      log(`proxy error: ${describeError(error)}`);
      sendJson(response, 500, {
        error: { message: `faultline proxy: ${describeError(error)}`, type: 'faultline_proxy' },
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new UserError(
            `port ${options.port} on ${host} is already in use: choose another with --port`,
          ),
        );
      else
        reject(
          new UserError(`cannot listen on ${host}:${options.port} (${error.message})`, {
            cause: error,
          }),
        );
    });
    server.listen(options.port ?? 8600, host, () => resolve());
  });
  const boundPort = (server.address() as AddressInfo).port;
  bound.port = boundPort;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  log(
    `recording calls to ${shownUpstream(upstream)}${anthropicUpstream !== upstream ? ` (Anthropic: ${shownUpstream(anthropicUpstream)})` : ''} at http://${shownHost}:${boundPort}`,
  );
  return {
    url: `http://${isWildcard(host) ? '127.0.0.1' : shownHost}:${boundPort}`,
    port: boundPort,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      await options.recorder.close();
    },
  };
}
