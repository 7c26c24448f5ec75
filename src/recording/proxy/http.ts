/** Small pieces of the proxy's HTTP handling: a JSON answer, a request body, a request's provider. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sends a JSON answer; ends the connection instead when the headers are already sent. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
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
export function providerOf(request: IncomingMessage, path: string): 'openai' | 'anthropic' {
  const headers = request.headers;
  if (headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined)
    return 'anthropic';
  return /\/messages(\/|$)/.test(path) ? 'anthropic' : 'openai';
}

/** Reads a request body, or undefined when it is larger than `limit` (the request is then answered). */
export async function readBody(
  request: IncomingMessage,
  limit: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
