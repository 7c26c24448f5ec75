/**
 * A local HTTP server that speaks one provider's real wire protocol (OpenAI chat completions,
 * Anthropic messages, Google generateContent, Ollama chat) and answers from a script, recording
 * every request. Tests point providers at it with a base URL; nothing leaves 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProviderKind = 'openai' | 'anthropic' | 'google' | 'ollama';

/** A scripted answer: reply text, or a raw HTTP response (errors, rate limits). */
export type ScriptEntry =
  string | { status: number; headers?: Record<string, string>; body?: unknown };

/** A recorded request. */
export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  at: number;
}

/** A running scripted server. */
export interface ScriptedServer {
  /** Base URL to give the provider. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** The prompt text of each request (all message text joined). */
  prompts(): string[];
  close(): Promise<void>;
}

const BASE_PATH: Record<ProviderKind, string> = {
  openai: '/v1',
  anthropic: '/v1',
  google: '/v1beta',
  ollama: '/api',
};

function replyBody(kind: ProviderKind, text: string): unknown {
  switch (kind) {
    case 'openai':
      return {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: 1_777_777_777,
        model: 'scripted',
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      };
    case 'anthropic':
      return {
        id: 'msg_test',
        type: 'message',
        role: 'assistant',
        model: 'scripted',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20 },
      };
    case 'google':
      return {
        candidates: [
          { content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 },
        ],
        usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      };
    case 'ollama':
      return {
        model: 'scripted',
        created_at: '2026-01-01T00:00:00Z',
        message: { role: 'assistant', content: text },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 100,
        eval_count: 20,
      };
  }
}

/** Text of every message in a request body, whatever the provider's shape. */
function promptText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value))
        if (
          [
            'content',
            'text',
            'parts',
            'messages',
            'contents',
            'system',
            'systemInstruction',
          ].includes(key)
        )
          visit(inner);
    }
  };
  visit(body.messages ?? body.contents);
  visit(body.system ?? body.systemInstruction);
  return parts.join('\n');
}

/** Starts a server answering `script` in order; past its end it answers HTTP 500. */
export async function startScriptedProvider(
  kind: ProviderKind,
  script: ScriptEntry[],
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
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
      requests.push({ path: request.url ?? '', body, headers: request.headers, at: Date.now() });
      const entry = script[next];
      next += 1;
      if (entry === undefined) {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'script exhausted' } }));
      } else if (typeof entry === 'string') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(replyBody(kind, entry)));
      } else {
        response
          .writeHead(entry.status, { 'content-type': 'application/json', ...entry.headers })
          .end(JSON.stringify(entry.body ?? { error: { message: `scripted ${entry.status}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${BASE_PATH[kind]}`,
    requests,
    prompts: () => requests.map((request) => promptText(request.body)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
