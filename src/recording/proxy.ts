/**
 * The recording proxy: a local HTTP server that forwards OpenAI Chat Completions, the OpenAI
 * Responses API and Anthropic Messages to an upstream, unchanged for the client, and records every
 * call as a step of a run (recorder.ts). Any other path is forwarded without being recorded, to the
 * Anthropic upstream when it carries Anthropic's headers or a `/messages` path. In
 * replay, a responder may answer a call itself (from the recording, or with a fix) instead.
 *
 * It listens on 127.0.0.1 by default; guard.ts decides who may use it (no other site's page).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, UserError } from '../errors.js';
import { isWildcard } from '../server/auth.js';
import {
  clientHeaders,
  decodedBody,
  keptHeaders,
  pipeReply,
  sendUpstream,
  shownUpstream,
  transportReason,
  upstreamHeaders,
  upstreamUrl,
} from './forward.js';
import { headerValue, proxyGuard } from './guard.js';
import { AGENT_HEADER, identifyAgent, RUN_HEADER, RunClock } from './identify.js';
import type { Recorder } from './recorder.js';
import type { RecordedResponse } from './recording.js';
import type { CallHandle, RunBuilder } from './run-builder.js';
import { wireApiFor } from './wire/registry.js';
import type { ReplyView, RequestView, WireApi } from './wire/types.js';

export { TOKEN_HEADER } from './guard.js';

/** A call as a responder sees it. */
export interface ProxiedCall {
  run: string;
  agent: string;
  /** How many calls the agent made before this one in the run. */
  agentCall: number;
  api: WireApi;
  request: RequestView;
  /** The fingerprint recorded for the call (recording.ts). */
  fingerprint: { hash: string; last: string };
}

/** How the proxy answers a call itself. */
export type Answer =
  | {
      kind: 'recording' | 'fix';
      status: number;
      headers: Record<string, string>;
      body: string;
      reply: ReplyView;
    }
  | { kind: 'refuse'; status: number; message: string };

/** Answers some calls instead of the upstream (replay). */
export interface Responder {
  /** The answer to a call, or undefined to forward it upstream. */
  answer(call: ProxiedCall): Answer | undefined;
}

/** A reply an injector writes in place of the upstream's. */
export interface InjectedReply {
  contentType: string;
  body: string;
  reply: ReplyView;
}

/** Changes chosen calls on their way through (fault injection, src/recording/inject/). */
export interface Injector {
  /** The request body to forward instead of the client's (prompt injection), or undefined. */
  rewriteRequest(call: ProxiedCall, body: unknown): Promise<unknown>;
  /** True when the call's reply is to be replaced: it is then read whole before the client gets it. */
  replacesReply(call: ProxiedCall): boolean;
  /** The reply the client gets instead of the upstream's (response corruption), or undefined. */
  replaceReply(
    call: ProxiedCall,
    upstream: { body: string; streamed: boolean; reply: ReplyView },
  ): Promise<InjectedReply | undefined>;
}

/** Settings of the proxy. */
export interface ProxyOptions {
  /** Where OpenAI calls (and other paths without Anthropic's headers) go, e.g. https://api.openai.com/v1. */
  upstream: string;
  /** Where Anthropic Messages calls go (default: `upstream`). */
  anthropicUpstream?: string;
  recorder: Recorder;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required off loopback. */
  token?: string;
  /** Idle time after which a call without a run header starts a new run (default 30 s). */
  runGapMs?: number;
  /** Every call belongs to this run (replay records one run). */
  run?: string;
  responder?: Responder;
  /** Changes chosen calls (fault injection); the recording keeps what the client got. */
  injector?: Injector;
  /** Largest request body (default 32 MB). */
  maxRequestBytes?: number;
  /** Most bytes of one reply kept in the recording (default 8 MB); the client gets all of it. */
  recordLimitBytes?: number;
  /** One line per call and per problem. Keys and headers are never logged. */
  log?: (line: string) => void;
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Stops listening, ends open connections and writes every run. */
  close(): Promise<void>;
}

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

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * The provider a request the proxy does not record is meant for: Anthropic when it carries
 * Anthropic's headers (`anthropic-version`, `x-api-key`) or a `/messages` path, else OpenAI.
 */
function providerOf(request: IncomingMessage, path: string): 'openai' | 'anthropic' {
  const headers = request.headers;
  if (headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined)
    return 'anthropic';
  return /\/messages(\/|$)/.test(path) ? 'anthropic' : 'openai';
}

/** Reads a request body, or undefined when it is larger than `limit` (the request is then answered). */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Starts the proxy; resolves once it listens. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const upstream = parseUpstream(options.upstream);
  const anthropicUpstream = options.anthropicUpstream
    ? parseUpstream(options.anthropicUpstream, '--anthropic-upstream')
    : upstream;
  const log = options.log ?? (() => {});
  const clock = new RunClock({ gapMs: options.runGapMs ?? 30_000 });
  const maxRequest = options.maxRequestBytes ?? 32 * 1024 * 1024;
  const recordLimit = options.recordLimitBytes ?? 8 * 1024 * 1024;
  // Known once listening; the Host check compares a named port with it.
  const bound: { port?: number } = {};
  const refusal = proxyGuard(host, options.token, () => bound.port);

  /**
   * Forwards a request the proxy does not record (a model list, embeddings, Anthropic's token
   * count) to its provider's upstream, with that provider's key rules.
   */
  async function forwardOnly(
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
    url: URL,
  ) {
    const provider = providerOf(request, url.pathname);
    const base = provider === 'anthropic' ? anthropicUpstream : upstream;
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
      sendJson(response, 502, {
        error: {
          message: `faultline proxy: the upstream ${base.origin} could not be reached (${transportReason(error)})`,
          type: 'upstream_unreachable',
        },
      });
      return;
    }
    await pipeReply(reply, response, 0);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refused = refusal(request);
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
      await forwardOnly(request, response, body, url);
      return;
    }
    await recordCall(request, response, body, url, api, api.readRequest(parsed), parsed);
  }

  async function recordCall(
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
    url: URL,
    api: WireApi,
    view: RequestView,
    parsed: unknown,
  ): Promise<void> {
    const started = performance.now();
    const { agent, source } = identifyAgent(headerValue(request.headers[AGENT_HEADER]), view);
    const runHeader = headerValue(request.headers[RUN_HEADER]);
    const automatic = !options.run && !runHeader;
    const runId = options.run ?? clock.begin(runHeader);
    let builder: RunBuilder;
    let call: CallHandle;
    try {
      builder = await options.recorder.run(runId);
      call = builder.begin({ agent, agentSource: source, api: api.name, request: view });
    } catch (error) {
      if (automatic) clock.end(runId);
      throw error;
    }
    let finished = false;
    const finish = (end: Parameters<RunBuilder['finish']>[1], status: number | string) => {
      finished = true;
      try {
        builder.finish(call, end);
      } finally {
        if (automatic) clock.end(runId);
      }
      options.recorder.changed(runId);
      log(
        `${runId} ${agent} ${api.name}${view.stream ? ' (stream)' : ''} → ${status} ${Math.round(end.durationMs)} ms${end.answeredBy && end.answeredBy !== 'upstream' ? ` [${end.answeredBy}]` : ''}${call.call.error ? `: ${call.call.error.slice(0, 160)}` : ''}`,
      );
    };

    // Whatever throws from here on (a responder, an injector, the client's socket) still ends the
    // call, with an error step, so its run is released and the next call does not join it.
    try {
      const proxied: ProxiedCall = {
        run: runId,
        agent,
        agentCall: call.call.agentCall,
        api,
        request: view,
        fingerprint: call.call.request,
      };
      const answer = options.responder?.answer(proxied);
      if (answer) {
        if (answer.kind === 'refuse') {
          sendJson(response, answer.status, api.errorBody(answer.message, 'faultline_replay'));
          finish({ error: answer.message, durationMs: performance.now() - started }, answer.status);
          return;
        }
        response.writeHead(answer.status, {
          ...answer.headers,
          'content-length': Buffer.byteLength(answer.body),
        });
        response.end(answer.body);
        finish(
          {
            response: {
              status: answer.status,
              headers: keptHeaders(answer.headers),
              body: answer.body,
            },
            reply: answer.reply,
            durationMs: performance.now() - started,
            answeredBy: answer.kind,
          },
          answer.status,
        );
        return;
      }

      const base = api.provider === 'anthropic' ? anthropicUpstream : upstream;
      const target = upstreamUrl(base, url.pathname, url.search);
      const answeredBy = options.responder ? ('upstream' as const) : undefined;
      const rewritten = await options.injector?.rewriteRequest(proxied, parsed);
      const forwarded =
        rewritten === undefined ? body : Buffer.from(JSON.stringify(rewritten), 'utf8');
      const sent = sendUpstream(
        target,
        'POST',
        upstreamHeaders(request.headers, api.provider, forwarded.byteLength),
        forwarded,
      );
      response.on('close', () => {
        if (!response.writableFinished) sent.abort();
      });
      let reply: IncomingMessage;
      try {
        reply = await sent.reply;
      } catch (error) {
        const message = `faultline proxy: the upstream ${base.origin} could not be reached (${transportReason(error)})`;
        sendJson(response, 502, api.errorBody(message, 'upstream_unreachable'));
        finish(
          {
            error: message,
            durationMs: performance.now() - started,
            ...(answeredBy ? { answeredBy } : {}),
          },
          502,
        );
        return;
      }
      const status = reply.statusCode ?? 502;
      if (options.injector && status < 300 && options.injector.replacesReply(proxied)) {
        const injected = await injectReply(proxied, reply, response, options.injector);
        finish({ ...injected, durationMs: performance.now() - started }, status);
        return;
      }
      const piped = await pipeReply(reply, response, recordLimit);
      let text = '';
      let readError: string | undefined;
      try {
        text = piped.truncated
          ? piped.body.toString('utf8')
          : decodedBody(piped.body, headerValue(reply.headers['content-encoding']));
      } catch (error) {
        readError = describeError(error);
      }
      const streamed = (reply.headers['content-type'] ?? '').includes('event-stream');
      let readReply: ReplyView | undefined;
      if (!readError && text.length > 0 && !piped.truncated) {
        try {
          readReply = api.readReply(text, streamed);
        } catch (error) {
          readError = `the reply body could not be read (${describeError(error).slice(0, 200)})`;
        }
      } else if (!readError && text.length === 0 && !piped.error)
        readError = 'the reply body was empty';
      const recorded: RecordedResponse = {
        status,
        headers: keptHeaders(reply.headers),
        body: text,
        ...(piped.truncated ? { truncated: true } : {}),
      };
      const error = piped.error ?? readError;
      finish(
        {
          response: recorded,
          ...(readReply ? { reply: readReply } : {}),
          ...(error ? { error } : {}),
          durationMs: performance.now() - started,
          ...(answeredBy ? { answeredBy } : {}),
        },
        status,
      );
    } catch (error) {
      if (!finished)
        finish(
          {
            error: `faultline proxy: ${describeError(error)}`,
            durationMs: performance.now() - started,
          },
          500,
        );
      throw error;
    }
  }

  /**
   * Reads the upstream's reply whole and sends the injector's in its place (or the upstream's
   * bytes, when the injector leaves it); returns what the recording keeps: what the client got.
   */
  async function injectReply(
    call: ProxiedCall,
    reply: IncomingMessage,
    response: ServerResponse,
    injector: Injector,
  ): Promise<Pick<Parameters<RunBuilder['finish']>[1], 'response' | 'reply' | 'error'>> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of reply as AsyncIterable<Buffer>) chunks.push(chunk);
    } catch (error) {
      response.destroy();
      return { error: `the upstream connection dropped (${transportReason(error)})` };
    }
    const raw = Buffer.concat(chunks);
    const streamed = (reply.headers['content-type'] ?? '').includes('event-stream');
    let replaced: InjectedReply | undefined;
    let text = '';
    let original: ReplyView | undefined;
    try {
      text = decodedBody(raw, headerValue(reply.headers['content-encoding']));
      original = call.api.readReply(text, streamed);
      replaced = await injector.replaceReply(call, { body: text, streamed, reply: original });
    } catch (error) {
      log(`injection into ${call.run} ${call.agent} failed: ${describeError(error)}`);
    }
    if (!replaced) {
      response.writeHead(reply.statusCode ?? 200, reply.statusMessage, clientHeaders(reply));
      response.end(raw);
      return {
        response: {
          status: reply.statusCode ?? 200,
          headers: keptHeaders(reply.headers),
          body: text,
        },
        ...(original ? { reply: original } : {}),
      };
    }
    const headers = { 'content-type': replaced.contentType };
    response.writeHead(reply.statusCode ?? 200, {
      ...headers,
      'content-length': Buffer.byteLength(replaced.body),
    });
    response.end(replaced.body);
    return {
      response: { status: reply.statusCode ?? 200, headers, body: replaced.body },
      reply: replaced.reply,
    };
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
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
