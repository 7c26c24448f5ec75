/**
 * A tap between an app's OTLP/HTTP exporter and faultline's receiver, for the framework telemetry
 * tests: it keeps a copy of every export (protobuf decoded into OTLP/JSON by faultline's own
 * decoder, or JSON as sent) and forwards the bytes unchanged to the receiver, answering with the
 * receiver's answer. What it kept is what faultline received: the tests save it as the golden
 * fixture that the importers are also tested on offline.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest } from '../src/live/otlp-proto.js';

/** A running tap. */
export interface OtlpTap {
  /** `http://127.0.0.1:PORT`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** Every span received so far, as one OTLP/JSON document. */
  document(): { resourceSpans: unknown[] };
  close(): Promise<void>;
}

const bodyOf = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** Starts a tap forwarding to `target` (a receiver's `…/v1/traces`). */
export async function startOtlpTap(target: string): Promise<OtlpTap> {
  const resourceSpans: unknown[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const bytes = await bodyOf(request);
      const plain = request.headers['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes;
      const json = String(request.headers['content-type']).startsWith('application/json');
      const document = json
        ? (JSON.parse(plain.toString('utf8')) as { resourceSpans?: unknown[] })
        : decodeTraceRequest(plain);
      resourceSpans.push(...(document.resourceSpans ?? []));
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'content-encoding', 'authorization'])
        if (typeof request.headers[name] === 'string') headers[name] = request.headers[name];
      const forwarded = await fetch(target, { method: 'POST', body: bytes, headers });
      response.writeHead(forwarded.status, {
        'content-type': forwarded.headers.get('content-type') ?? 'application/octet-stream',
      });
      response.end(Buffer.from(await forwarded.arrayBuffer()));
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    document: () => ({ resourceSpans: [...resourceSpans] }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
