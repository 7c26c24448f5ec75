/**
 * Response corruption in the proxy: the upstream's reply read whole, and the injector's reply sent
 * to the client in its place.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../../errors.js';
import { clientHeaders, decodedBody, keptHeaders, transportReason } from './forward.js';
import { headerValue } from './guard.js';
import { stripStream, stripWhole } from './logprobs.js';
import type { InjectedReply, Injector, ProxiedCall } from './types.js';
import type { RunBuilder } from '../record/run-builder.js';
import type { ReplyView } from '../wire/types.js';

/**
 * Reads the upstream's reply whole and sends the injector's in its place (or the upstream's
 * bytes, when the injector leaves it); returns what the recording keeps: what the client got.
 */
export async function injectReply(
  call: ProxiedCall,
  reply: IncomingMessage,
  response: ServerResponse,
  injector: Injector,
  options: {
    log: (line: string) => void;
    /** The proxy asked for log probabilities: an untouched reply goes without them. */
    stripLogprobs?: boolean;
  },
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
    options.log(`injection into ${call.run} ${call.agent} failed: ${describeError(error)}`);
  }
  if (!replaced && options.stripLogprobs && original) {
    const body = streamed ? stripStream(text) : stripWhole(text);
    response.writeHead(reply.statusCode ?? 200, {
      ...keptHeaders(reply.headers),
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
    return {
      response: { status: reply.statusCode ?? 200, headers: keptHeaders(reply.headers), body },
      reply: original,
    };
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
