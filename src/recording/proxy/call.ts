/**
 * One model call through the proxy, recorded as a step of its run: answered by the responder
 * (replay), or forwarded upstream (with the injector's changes, if any) and its reply piped back
 * to the client as it arrives, then read for the recording.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../../errors.js';
import {
  keptHeaders,
  failureMessage,
  sendUpstream,
  type SentRequest,
  upstreamHeaders,
  upstreamUrl,
} from './forward.js';
import { headerValue } from './guard.js';
import {
  AGENT_HEADER,
  RUN_HEADER,
  RunClock,
  TASK_HEADER,
  TRACEPARENT_HEADER,
} from '../record/identify.js';
import { sendJson } from './http.js';
import { injectReply } from './inject.js';
import { addsLogprobs, withLogprobs } from './logprobs.js';
import { pipeAndRead } from './reply.js';
import type { Answer, ProxiedCall, ProxyContext } from './types.js';
import type { CallHandle, RunBuilder } from '../record/run-builder.js';
import type { RequestView, WireApi } from '../wire/types.js';

/** How a call ended, as its run records it. */
type CallEnd = Parameters<RunBuilder['finish']>[1];

/** A call begun in its run, and how it ends (once: it then releases its run and logs a line). */
interface OpenCall {
  runId: string;
  agent: string;
  call: CallHandle;
  /** When the proxy got the call (performance.now()). */
  started: number;
  finish(end: CallEnd, status: number | string): void;
  /** Whether finish has run. */
  finished(): boolean;
}

/** A model call as the proxy got it. */
export interface IncomingCall {
  request: IncomingMessage;
  response: ServerResponse;
  body: Buffer;
  url: URL;
  api: WireApi;
  view: RequestView;
  /** The body, parsed. */
  parsed: unknown;
}

/** Begins a call in its run (the run header's, the proxy's one run, or the clock's). */
async function openCall(context: ProxyContext, incoming: IncomingCall): Promise<OpenCall> {
  const { options, clock, log } = context;
  const { request, api, view } = incoming;
  const started = performance.now();
  const runHeader = headerValue(request.headers[RUN_HEADER]);
  const traceparent = headerValue(request.headers[TRACEPARENT_HEADER]);
  const automatic = !options.run && RunClock.counted(runHeader, traceparent);
  const runId = options.run ?? clock.begin(runHeader, traceparent);
  let builder: RunBuilder;
  let call: CallHandle;
  let agent: string;
  try {
    builder = await options.recorder.run(runId);
    const task = headerValue(request.headers[TASK_HEADER]);
    if (task) builder.task = task;
    const found = builder.agents.identify(headerValue(request.headers[AGENT_HEADER]), view);
    agent = found.agent;
    call = builder.begin({ agent, agentSource: found.source, api: api.name, request: view });
  } catch (error) {
    if (automatic) clock.end(runId);
    throw error;
  }
  let finished = false;
  const finish = (end: CallEnd, status: number | string) => {
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
  return { runId, agent, call, started, finish, finished: () => finished };
}

/** Sends the responder's answer (a recorded reply, a fix, or a refusal) and ends the call. */
function sendAnswer(response: ServerResponse, api: WireApi, answer: Answer, open: OpenCall): void {
  const { started, finish } = open;
  if (answer.kind === 'refuse') {
    sendJson(response, answer.status, api.errorBody(answer.message, 'faultline_replay'));
    finish({ error: answer.message, durationMs: performance.now() - started }, answer.status);
    return;
  }
  if (answer.kind === 'drop') {
    response.destroy();
    finish(
      {
        error: answer.message,
        noReply: 'dropped',
        answeredBy: 'recording',
        durationMs: performance.now() - started,
      },
      'dropped',
    );
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
}

/** Statuses with which an upstream refuses a request it cannot serve as asked (a parameter). */
const REFUSED = new Set([400, 422]);

/** Forwards the call upstream (its request rewritten by the injector, if any) and ends it. */
async function forwardCall(
  context: ProxyContext,
  incoming: IncomingCall,
  proxied: ProxiedCall,
  open: OpenCall,
): Promise<void> {
  const { options } = context;
  const { request, response, body, url, api, parsed } = incoming;
  const { started, finish } = open;
  const base = api.provider === 'anthropic' ? context.anthropicUpstream : context.upstream;
  const target = upstreamUrl(base, url.pathname, url.search);
  const answeredBy = options.responder ? ('upstream' as const) : undefined;
  const rewritten = await options.injector?.rewriteRequest(proxied, parsed);
  // With --logprobs, asked for here when the client did not: stripped again from its reply.
  let strip = addsLogprobs(options.logprobs, api, rewritten ?? parsed);
  let sent: SentRequest | undefined;
  const send = (logprobs: boolean) => {
    const outgoing = logprobs ? withLogprobs(rewritten ?? parsed) : rewritten;
    const forwarded = outgoing === undefined ? body : Buffer.from(JSON.stringify(outgoing), 'utf8');
    const headers = upstreamHeaders(request.headers, api.provider, forwarded.byteLength);
    // A stream is stripped event by event as it arrives: plain text is asked for.
    if (logprobs) headers['accept-encoding'] = 'identity';
    const upstream = sendUpstream(target, 'POST', headers, forwarded);
    sent = upstream;
    response.on('close', () => {
      if (!response.writableFinished) upstream.abort();
    });
    return upstream.reply;
  };
  let reply: IncomingMessage;
  try {
    reply = await send(strip);
    if (strip && REFUSED.has(reply.statusCode ?? 0)) {
      // A model without log probabilities refuses the request: asked again as the client asked,
      // the client gets what it would have got without --logprobs.
      reply.resume();
      context.log(
        `${open.runId} ${open.agent}: the upstream refused logprobs (HTTP ${reply.statusCode}); asked again without`,
      );
      strip = false;
      reply = await send(false);
    }
  } catch (error) {
    const failure = sent?.failure(error) ?? 'unreachable';
    const message = failureMessage(failure, base.origin, error);
    if (failure === 'unreachable')
      sendJson(response, 502, api.errorBody(message, 'upstream_unreachable'));
    else response.destroy();
    finish(
      {
        error: message,
        noReply: failure,
        durationMs: performance.now() - started,
        ...(answeredBy ? { answeredBy } : {}),
      },
      failure === 'unreachable' ? 502 : failure,
    );
    return;
  }
  const status = reply.statusCode ?? 502;
  if (options.injector && status < 300 && options.injector.replacesReply(proxied)) {
    const injected = await injectReply(proxied, reply, response, options.injector, {
      log: context.log,
      stripLogprobs: strip,
    });
    finish({ ...injected, durationMs: performance.now() - started }, status);
    return;
  }
  const kept = await pipeAndRead(context, api, reply, response, strip && status < 300);
  finish(
    {
      ...kept,
      durationMs: performance.now() - started,
      ...(answeredBy ? { answeredBy } : {}),
    },
    status,
  );
}

/** Records one model call: answered by the responder, or forwarded upstream. */
export async function recordCall(context: ProxyContext, incoming: IncomingCall): Promise<void> {
  const open = await openCall(context, incoming);
  // Whatever throws from here on (a responder, an injector, the client's socket) still ends the
  // call, with an error step, so its run is released and the next call does not join it.
  try {
    const proxied: ProxiedCall = {
      run: open.runId,
      agent: open.agent,
      agentCall: open.call.call.agentCall,
      agentSource: open.call.call.agentSource,
      api: incoming.api,
      request: incoming.view,
      fingerprint: open.call.call.request,
    };
    const answer = context.options.responder?.answer(proxied);
    if (answer) {
      sendAnswer(incoming.response, incoming.api, answer, open);
      return;
    }
    await forwardCall(context, incoming, proxied, open);
  } catch (error) {
    if (!open.finished())
      open.finish(
        {
          error: `faultline proxy: ${describeError(error)}`,
          durationMs: performance.now() - open.started,
        },
        500,
      );
    throw error;
  }
}
