/**
 * A forwarded call's reply passed through to the client: piped as it arrives (without the log
 * probabilities the proxy asked for, when it strips them) and read for the recording.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../../errors.js';
import { decodedBody, keptHeaders, pipeReply } from './forward.js';
import { headerValue } from './guard.js';
import { pipeStripped } from './logprobs.js';
import type { ProxyContext } from './types.js';
import type { RecordedResponse } from '../record/recording.js';
import type { RunBuilder } from '../record/run-builder.js';
import type { ReplyView, WireApi } from '../wire/types.js';

/** The reply's texts as passing it through gave them: what is recorded, and what is read. */
interface PassedReply {
  /** What the client got, as the recording keeps it. */
  recorded: string;
  /** What the upstream sent, decoded: read for the step (the same text unless stripped). */
  read: string;
  truncated: boolean;
  /** A transport failure (pipeReply's). */
  error?: string;
  /** Why the body could not be decoded. */
  readError?: string;
}

/** Pipes the reply to the client as it came; the body decoded for the recording. */
async function passThrough(
  context: ProxyContext,
  reply: IncomingMessage,
  response: ServerResponse,
): Promise<PassedReply> {
  const piped = await pipeReply(reply, response, context.recordLimit);
  const common = { truncated: piped.truncated, ...(piped.error ? { error: piped.error } : {}) };
  try {
    const text = piped.truncated
      ? piped.body.toString('utf8')
      : decodedBody(piped.body, headerValue(reply.headers['content-encoding']));
    return { recorded: text, read: text, ...common };
  } catch (error) {
    return { recorded: '', read: '', ...common, readError: describeError(error) };
  }
}

/**
 * Pipes the upstream's reply to the client (without the log probabilities the proxy asked for,
 * when `strip`); returns what the recording keeps of it.
 */
export async function pipeAndRead(
  context: ProxyContext,
  api: WireApi,
  reply: IncomingMessage,
  response: ServerResponse,
  strip: boolean,
): Promise<Pick<Parameters<RunBuilder['finish']>[1], 'response' | 'reply' | 'error'>> {
  const status = reply.statusCode ?? 502;
  let passed: PassedReply;
  if (strip) {
    const { clientText, upstreamText, ...rest } = await pipeStripped(
      reply,
      response,
      context.recordLimit,
    );
    passed = { recorded: clientText, read: upstreamText, ...rest };
  } else passed = await passThrough(context, reply, response);
  let readError = passed.readError;
  const streamed = (reply.headers['content-type'] ?? '').includes('event-stream');
  let readReply: ReplyView | undefined;
  if (!readError && passed.read.length > 0 && !passed.truncated) {
    try {
      readReply = api.readReply(passed.read, streamed);
    } catch (error) {
      readError = `the reply body could not be read (${describeError(error).slice(0, 200)})`;
    }
  } else if (!readError && passed.read.length === 0 && !passed.error)
    readError = 'the reply body was empty';
  const recorded: RecordedResponse = {
    status,
    headers: keptHeaders(reply.headers),
    body: passed.recorded,
    ...(passed.truncated ? { truncated: true } : {}),
  };
  const error = passed.error ?? readError;
  return {
    response: recorded,
    ...(readReply ? { reply: readReply } : {}),
    ...(error ? { error } : {}),
  };
}
