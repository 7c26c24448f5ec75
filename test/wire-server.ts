/**
 * A local model server for the recording proxy's tests and benchmark: it speaks OpenAI Chat
 * Completions, the Responses API and Anthropic Messages, streaming (one event per write, the text
 * split into several deltas) and not, and answers from a function of the request. It can also
 * misbehave on purpose: an HTTP error with headers, a dropped connection, a malformed body.
 * Chat Completions asked for `logprobs` carry them, one token per piece of text, as OpenAI does.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { openAiChat } from '../src/recording/wire/openai-chat.js';
import { wireApiFor } from '../src/recording/wire/registry.js';
import type { ReplyContent } from '../src/recording/wire/types.js';

/** What the server does with a request. */
export type WireAnswer =
  | ReplyContent
  | { status: number; headers?: Record<string, string>; body: unknown }
  | { drop: 'before-reply' | 'mid-stream' }
  /** Never answers (a slow model), until the caller or the server's close ends the connection. */
  | { hang: true }
  | { malformed: string };

/** A request as the server received it. */
export interface WireRequest {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

/** A running server. */
export interface WireServer {
  /** `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  requests: WireRequest[];
  close(): Promise<void>;
}

/** The last user message's text, whatever the API. */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = body.messages ?? body.input;
  if (typeof messages === 'string') return messages;
  const list = Array.isArray(messages) ? (messages as Record<string, unknown>[]) : [];
  const user = list.filter((message) => message.role === 'user').at(-1);
  const content = user?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return (content as Record<string, unknown>[]).map((part) => String(part.text ?? '')).join('');
  return '';
}

/** By default: "echo: <last user text>". */
const echo = (request: WireRequest): WireAnswer => ({
  text: `echo: ${lastUserText(request.body)}`,
  toolCalls: [],
});

/** The text in the pieces the server streams (and gives log probabilities for): words with their spaces. */
const piecesOf = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];

/** A piece's made-up log probability: figures are the least likely, as a test can tell. */
export const pieceLogprob = (piece: string, index: number) =>
  /\d/.test(piece) ? -2.5 : -0.05 * ((index % 4) + 1);

/** Chat Completions' `logprobs` of some pieces (the i-th piece of the reply at `from + i`). */
const logprobsOf = (pieces: readonly string[], from = 0) => ({
  content: pieces.map((token, index) => ({
    token,
    logprob: pieceLogprob(token, from + index),
    bytes: [...Buffer.from(token)],
    top_logprobs: [],
  })),
  refusal: null,
});

/** A chat completion stream with the text in several deltas, as OpenAI sends it. */
function chatStream(
  reply: ReplyContent,
  model: string,
  includeUsage: boolean,
  logprobs = false,
  id = 'chatcmpl-wire',
): string[] {
  const base = {
    id,
    object: 'chat.completion.chunk',
    created: 1_777_777_777,
    model,
  };
  const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: unknown, finish: string | null, chunkLogprobs: unknown = null) =>
    event({
      ...base,
      choices: [{ index: 0, delta, logprobs: chunkLogprobs, finish_reason: finish }],
    });
  const events = [
    chunk({ role: 'assistant', content: '' }, null, logprobs ? logprobsOf([]) : null),
  ];
  piecesOf(reply.text).forEach((piece, index) =>
    events.push(chunk({ content: piece }, null, logprobs ? logprobsOf([piece], index) : null)),
  );
  reply.toolCalls.forEach((call, index) =>
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: call.id ?? `call_${index}`,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            },
          ],
        },
        null,
      ),
    ),
  );
  events.push(chunk({}, reply.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage)
    events.push(
      event({
        ...base,
        choices: [],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
    );
  events.push('data: [DONE]\n\n');
  return events;
}

/**
 * A stream's id, one per request as OpenAI gives one per reply (LangGraph merges messages that
 * share an id), and the same for the same request (a test compares replies direct and proxied).
 */
const streamId = (body: Record<string, unknown>) =>
  `chatcmpl-${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 12)}`;

/** Starts the server; `answer` decides each reply (default: an echo); port 0 is a free one. */
export async function startWireServer(
  answer: (request: WireRequest) => WireAnswer = echo,
  port = 0,
): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded as empty
      }
      const path = request.url ?? '';
      const received = { path, body, headers: request.headers };
      requests.push(received);
      void respond(received, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function respond(request: WireRequest, response: ServerResponse) {
    const api = wireApiFor(request.path.split('?')[0]!);
    if (!api) {
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-other' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      return;
    }
    const decided = answer(request);
    if ('hang' in decided) return;
    if ('drop' in decided) {
      if (decided.drop === 'before-reply') {
        response.socket?.destroy();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatStream({ text: 'partial answer', toolCalls: [] }, 'scripted', false)[1]!);
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.socket?.destroy();
      return;
    }
    if ('malformed' in decided) {
      response.writeHead(200, {
        'content-type': 'application/json',
        'x-request-id': 'req-malformed',
      });
      response.end(decided.malformed);
      return;
    }
    if ('status' in decided) {
      response.writeHead(decided.status, {
        'content-type': 'application/json',
        ...decided.headers,
      });
      response.end(typeof decided.body === 'string' ? decided.body : JSON.stringify(decided.body));
      return;
    }
    const model = typeof request.body.model === 'string' ? request.body.model : 'scripted';
    const stream = request.body.stream === true;
    const logprobs = api === openAiChat && request.body.logprobs === true;
    const headers = { 'x-request-id': `req-${requests.length}` };
    if (!stream) {
      const written = api.writeReply(decided, {
        stream: false,
        model,
        inputTokens: 11,
        outputTokens: 7,
      });
      let body = written.body;
      if (logprobs) {
        const whole = JSON.parse(body) as { choices: { logprobs: unknown }[] };
        whole.choices[0]!.logprobs = logprobsOf(piecesOf(decided.text));
        body = JSON.stringify(whole);
      }
      response.writeHead(200, { 'content-type': written.contentType, ...headers });
      response.end(body);
      return;
    }
    const includeUsage =
      (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage ===
      true;
    const events =
      api === openAiChat
        ? chatStream(decided, model, includeUsage, logprobs, streamId(request.body))
        : api
            .writeReply(decided, { stream: true, model, inputTokens: 11, outputTokens: 7 })
            .body.split(/(?<=\n\n)/);
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
    for (const event of events) {
      response.write(event);
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  }

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${bound}/v1`,
    origin: `http://127.0.0.1:${bound}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
