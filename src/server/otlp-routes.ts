/**
 * OTLP/HTTP trace receiver: `POST /v1/traces` with an `ExportTraceServiceRequest` in protobuf
 * (`application/x-protobuf`) or JSON (`application/json`), gzip-compressed or not. The spans go to
 * live ingest (src/live/) and the export is answered at once, as the OTLP specification says: 200
 * with an `ExportTraceServiceResponse` in the request's encoding (with `partialSuccess` when spans
 * were refused), 400 for a body that cannot be read, 413 over the size limit, 415 for another
 * content type, 503 with Retry-After while the buffer is full (exporters retry). Error bodies are a
 * `google.rpc.Status` in the request's encoding. `GET /api/live` gives ingest's counters.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { LiveIngest } from '../live/ingest.js';
import { decodeTraceRequest, encodeErrorStatus, encodeTraceResponse } from '../live/otlp-proto.js';
import type { OtlpDocument } from '../live/span-buffer.js';
import { accessGuard, type AccessOptions } from './auth.js';
import { errorResponse } from './http-errors.js';

const gunzipAsync = promisify(gunzip);

/** Settings of the receiver. */
export interface OtlpRouteOptions {
  /** Largest body as sent (compressed or not), in bytes (default 16 MB). */
  maxBodyBytes?: number;
  /** Largest body once decompressed, in bytes (default 64 MB). */
  maxDecodedBytes?: number;
}

type Encoding = 'protobuf' | 'json';

/** gRPC status codes used in the error bodies. */
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** An answer in the request's encoding. */
function answer(
  context: Context,
  encoding: Encoding,
  status: 200 | 400 | 413 | 503,
  body: { protobuf: Uint8Array; json: unknown },
  headers: Record<string, string> = {},
): Response {
  if (encoding === 'json') return context.json(body.json as object, status, headers);
  return context.body(body.protobuf as Uint8Array<ArrayBuffer>, status, {
    'content-type': 'application/x-protobuf',
    ...headers,
  });
}

function failure(
  context: Context,
  encoding: Encoding,
  status: 400 | 413 | 503,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return answer(
    context,
    encoding,
    status,
    { protobuf: encodeErrorStatus(code, message), json: { code, message } },
    headers,
  );
}

class TooLarge extends Error {}

/** The body, decompressed when it says gzip. */
async function bodyBytes(request: Request, maxDecoded: number): Promise<Uint8Array> {
  const raw = new Uint8Array(await request.arrayBuffer());
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  if (encoding !== 'gzip')
    throw new TypeError(`Content-Encoding ${encoding} is not supported; send gzip or none`);
  try {
    return await gunzipAsync(raw, { maxOutputLength: maxDecoded });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new TooLarge(
        `the body is larger than ${Math.round(maxDecoded / 1024 / 1024)} MB once decompressed`,
      );
    throw new TypeError('the body is not valid gzip');
  }
}

function decode(bytes: Uint8Array, encoding: Encoding): OtlpDocument {
  let value: unknown;
  if (encoding === 'protobuf') {
    try {
      value = decodeTraceRequest(bytes);
    } catch (error) {
      throw new TypeError(
        `the body is not an ExportTraceServiceRequest in protobuf (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  } else {
    try {
      value = bytes.length === 0 ? {} : JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      throw new TypeError('the body is not valid JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError('the body is not an ExportTraceServiceRequest (expected an object)');
  const spans = (value as { resourceSpans?: unknown }).resourceSpans;
  if (spans !== undefined && spans !== null && !Array.isArray(spans))
    throw new TypeError('resourceSpans must be a list');
  return { resourceSpans: Array.isArray(spans) ? (spans as unknown[]) : [] };
}

/** The receiver's routes: `POST /v1/traces` and `GET /api/live`. */
export function otlpRoutes(ingest: LiveIngest, options: OtlpRouteOptions = {}): Hono {
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const maxDecoded = options.maxDecodedBytes ?? 64 * 1024 * 1024;
  const app = new Hono();

  app.get('/api/live', (context) => context.json(ingest.stats()));

  app.post(
    '/v1/traces',
    async (context, next) => {
      if (!encodingOf(context.req.header('content-type')))
        return context.json(
          {
            error: `send spans as application/x-protobuf or application/json, not ${context.req.header('content-type') ?? 'without a content type'}`,
          },
          415,
        );
      return next();
    },
    bodyLimit({
      maxSize: maxBody,
      onError: (context) =>
        failure(
          context,
          encodingOf(context.req.header('content-type'))!,
          413,
          RESOURCE_EXHAUSTED,
          `the export is larger than ${Math.round(maxBody / 1024 / 1024)} MB; send smaller batches`,
        ),
    }),
    async (context) => {
      const encoding = encodingOf(context.req.header('content-type'))!;
      let document: OtlpDocument;
      try {
        document = decode(await bodyBytes(context.req.raw, maxDecoded), encoding);
      } catch (error) {
        if (error instanceof TooLarge)
          return failure(context, encoding, 413, RESOURCE_EXHAUSTED, error.message);
        if (error instanceof TypeError)
          return failure(context, encoding, 400, INVALID_ARGUMENT, error.message);
        throw error;
      }
      let result: ReturnType<LiveIngest['add']>;
      try {
        result = ingest.add(document);
      } catch (error) {
        if (error instanceof TypeError)
          return failure(context, encoding, 400, INVALID_ARGUMENT, error.message);
        throw error;
      }
      if (result.status === 'full')
        return failure(context, encoding, 503, UNAVAILABLE, result.message, { 'retry-after': '1' });
      const rejected =
        result.rejected > 0
          ? { spans: result.rejected, message: result.message ?? 'spans were refused' }
          : undefined;
      return answer(context, encoding, 200, {
        protobuf: encodeTraceResponse(rejected),
        json: rejected
          ? {
              partialSuccess: {
                rejectedSpans: String(rejected.spans),
                errorMessage: rejected.message,
              },
            }
          : {},
      });
    },
  );
  return app;
}

/**
 * The application of the second listener (`--otlp-port`, 4318 by convention): the receiver alone,
 * behind the same access guard as the page's port.
 */
export function otlpApp(
  ingest: LiveIngest,
  guard: AccessOptions,
  log: (line: string) => void,
): Hono {
  const app = new Hono();
  app.onError((error, context) => errorResponse(context, error, log));
  app.notFound((context) =>
    context.json(
      {
        error: `no route ${context.req.method} ${context.req.path}; OTLP spans go to POST /v1/traces`,
      },
      404,
    ),
  );
  app.use('*', accessGuard(guard));
  app.route('/', otlpRoutes(ingest));
  return app;
}
