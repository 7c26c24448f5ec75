/**
 * `faultline proxy --logprobs`: token log probabilities for the recording, without the client
 * seeing them. For a Chat Completions call whose client did not ask for `logprobs`, the proxy asks
 * the upstream for them, reads them into the step (`Step.logprobs`), and strips them from the
 * reply before the client gets it (a stream event by event, as it arrives), so the client reads
 * what it would have read without them: each choice's `logprobs` is `null`, as OpenAI sends it
 * unasked. A client that asked itself gets the upstream's reply untouched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { describeError } from '../../errors.js';
import { clientHeaders, decodedBody, type PipeResult } from './forward.js';
import { headerValue } from './guard.js';
import { asArray, asObject, type WireApi } from '../wire/types.js';

/** Reply headers that no longer hold once the body is rewritten (its length, its encoding). */
const REWRITTEN_HEADERS = new Set(['content-length', 'content-encoding']);

/**
 * Whether the proxy asks for log probabilities on this call: it was told to (`--logprobs`), the
 * call is Chat Completions, and the client did not ask for them itself.
 */
export function addsLogprobs(enabled: boolean | undefined, api: WireApi, body: unknown): boolean {
  const request = asObject(body);
  return enabled === true && api.name === 'openai-chat' && request?.logprobs !== true;
}

/** The request body with `logprobs: true` (the client's other fields as they were). */
export const withLogprobs = (body: unknown): Record<string, unknown> => ({
  ...asObject(body),
  logprobs: true,
});

/** A Chat Completions body or chunk with each choice's `logprobs` set to null; undefined when none had any. */
function strippedPayload(value: unknown): Record<string, unknown> | undefined {
  const object = asObject(value);
  const choices = asArray(object?.choices);
  if (!object || !choices.some((choice) => asObject(choice)?.logprobs != null)) return undefined;
  return {
    ...object,
    choices: choices.map((choice) => {
      const fields = asObject(choice);
      return fields && fields.logprobs != null ? { ...fields, logprobs: null } : choice;
    }),
  };
}

/** A whole (non-streamed) reply's text without log probabilities; as it was when it is not JSON. */
export function stripWhole(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const stripped = strippedPayload(parsed);
  return stripped ? JSON.stringify(stripped) : text;
}

/** One stream event's text (its separator excluded) without log probabilities. */
function stripEvent(event: string): string {
  const lines = event.split(/\r\n|\r|\n/);
  const data = lines
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''));
  if (data.length === 0) return event;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.join('\n'));
  } catch {
    return event; // `[DONE]`, or no JSON: nothing to strip
  }
  const stripped = strippedPayload(parsed);
  if (!stripped) return event;
  // The event's other lines (`event:`, `id:`, comments) stay, the data where it first was.
  const first = lines.findIndex((line) => line.startsWith('data:'));
  return lines
    .flatMap((line, index) =>
      index === first
        ? [`data: ${JSON.stringify(stripped)}`]
        : line.startsWith('data:')
          ? []
          : [line],
    )
    .join('\n');
}

/** Strips a stream as it arrives: complete events are rewritten, a partial one waits. */
export class StreamStripper {
  private pending = '';

  /** The text that can go to the client after `text` came. */
  push(text: string): string {
    this.pending += text;
    let out = '';
    const boundary = /\r\n\r\n|\n\n|\r\r/g;
    let start = 0;
    for (let match = boundary.exec(this.pending); match; match = boundary.exec(this.pending)) {
      out += stripEvent(this.pending.slice(start, match.index)) + match[0];
      start = match.index + match[0].length;
    }
    this.pending = this.pending.slice(start);
    return out;
  }

  /** What is left at the end of the stream. */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest.length > 0 ? stripEvent(rest) : '';
  }
}

/** A whole stream's text without log probabilities (a reply read whole, as injection reads it). */
export function stripStream(text: string): string {
  const stripper = new StreamStripper();
  return stripper.push(text) + stripper.end();
}

/** What passing a stripped reply through kept: the client's text and the upstream's. */
export interface StrippedPipe extends Omit<PipeResult, 'body'> {
  /** The reply as the client got it (no log probabilities): what the recording keeps. */
  clientText: string;
  /** The reply as the upstream sent it (decoded): what the step's log probabilities are read from. */
  upstreamText: string;
  /** Why the upstream's body could not be decoded, when it could not. */
  readError?: string;
}

/** A decompressing stream for an encoding the upstream used though asked not to, or undefined. */
function decoderOf(encoding: string | undefined): Transform | undefined {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === 'gzip' || name === 'x-gzip') return createGunzip();
  if (name === 'br') return createBrotliDecompress();
  if (name === 'deflate') return createInflate();
  return undefined;
}

/** The upstream's reply headers for the client, less those the rewritten body no longer matches. */
function rewrittenHeaders(reply: IncomingMessage, length?: number): string[] {
  const raw = clientHeaders(reply);
  const out: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2)
    if (!REWRITTEN_HEADERS.has(raw[index]!.toLowerCase())) out.push(raw[index]!, raw[index + 1]!);
  if (length !== undefined) out.push('content-length', String(length));
  return out;
}

/** Keeps text up to a limit of bytes. */
class Kept {
  text = '';
  private bytes = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  add(text: string): void {
    if (this.truncated) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.limit) {
      this.truncated = true;
      return;
    }
    this.text += text;
    this.bytes += size;
  }
}

/** A whole reply read, stripped and sent in one piece (Content-Length set to the new length). */
async function sendWholeStripped(
  reply: IncomingMessage,
  response: ServerResponse,
): Promise<StrippedPipe> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of reply as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch {
    response.destroy();
    return {
      clientText: '',
      upstreamText: '',
      truncated: false,
      error: 'the upstream connection dropped before the reply ended',
    };
  }
  const raw = Buffer.concat(chunks);
  let upstreamText: string;
  try {
    upstreamText = decodedBody(raw, headerValue(reply.headers['content-encoding']));
  } catch (error) {
    // Not readable here: the client gets the bytes as they came, and the recording reads nothing.
    response.writeHead(reply.statusCode ?? 502, reply.statusMessage, clientHeaders(reply));
    response.end(raw);
    return {
      clientText: raw.toString('utf8'),
      upstreamText: '',
      truncated: false,
      readError: describeError(error),
    };
  }
  const clientText = stripWhole(upstreamText);
  response.writeHead(
    reply.statusCode ?? 502,
    reply.statusMessage,
    rewrittenHeaders(reply, Buffer.byteLength(clientText)),
  );
  response.end(clientText);
  return { clientText, upstreamText, truncated: false };
}

/**
 * Passes a successful Chat Completions reply to the client without the log probabilities the proxy
 * asked for: a stream event by event as it arrives, a whole body once read. Keeps up to `limit`
 * bytes of each text for the recording. As pipeReply, a dropped upstream drops the client.
 */
export function pipeStripped(
  reply: IncomingMessage,
  response: ServerResponse,
  limit: number,
): Promise<StrippedPipe> {
  const streamed = (reply.headers['content-type'] ?? '').includes('event-stream');
  if (!streamed) return sendWholeStripped(reply, response);
  response.writeHead(reply.statusCode ?? 502, reply.statusMessage, rewrittenHeaders(reply));
  response.flushHeaders();
  const decoder = decoderOf(headerValue(reply.headers['content-encoding']));
  const source: NodeJS.ReadableStream = decoder ? reply.pipe(decoder) : reply;
  const text = new StringDecoder('utf8');
  const stripper = new StreamStripper();
  const client = new Kept(limit);
  const upstream = new Kept(limit);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      resolve({
        clientText: client.text,
        upstreamText: upstream.text,
        truncated: client.truncated || upstream.truncated,
        ...(error ? { error } : {}),
      });
    };
    const write = (out: string) => {
      client.add(out);
      if (out.length > 0 && !response.write(out)) source.pause();
    };
    source.on('data', (chunk: Buffer) => {
      const piece = text.write(chunk);
      upstream.add(piece);
      write(stripper.push(piece));
    });
    response.on('drain', () => source.resume());
    source.on('end', () => {
      const piece = text.end();
      upstream.add(piece);
      write(stripper.push(piece) + stripper.end());
      response.end();
      settle();
    });
    source.on('error', () => {
      response.destroy();
      settle('the upstream stream could not be read');
    });
    reply.on('close', () => {
      if (reply.complete) return;
      response.destroy();
      settle('the upstream connection dropped before the reply ended');
    });
    response.on('close', () => {
      if (response.writableFinished) return;
      reply.destroy();
      settle('the client closed the connection before the reply ended');
    });
  });
}
