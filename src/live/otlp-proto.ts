/**
 * OTLP/HTTP protobuf bodies: the trace messages of opentelemetry-proto (Apache-2.0,
 * github.com/open-telemetry/opentelemetry-proto, `opentelemetry/proto/{common,resource,trace}/v1`
 * and `collector/trace/v1/trace_service.proto`), written here as a protobufjs JSON descriptor with
 * the field numbers of those files. Enums are read as plain integers (the same wire type), which
 * is the shape OTLP/JSON gives them. A decoded request is turned into the OTLP/JSON document the
 * importers read: ids as lower-case hex, 64-bit numbers as decimal strings, bytes values as base64.
 */
import protobuf from 'protobufjs';

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });

/** The messages read, as protobufjs's JSON descriptor (`Root.fromJSON`). */
const DESCRIPTOR = {
  nested: {
    AnyValue: {
      oneofs: {
        value: {
          oneof: [
            'stringValue',
            'boolValue',
            'intValue',
            'doubleValue',
            'arrayValue',
            'kvlistValue',
            'bytesValue',
          ],
        },
      },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
    KeyValueList: { fields: { values: repeated('KeyValue', 1) } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    InstrumentationScope: {
      fields: {
        name: { type: 'string', id: 1 },
        version: { type: 'string', id: 2 },
        attributes: repeated('KeyValue', 3),
        droppedAttributesCount: { type: 'uint32', id: 4 },
      },
    },
    Resource: {
      fields: {
        attributes: repeated('KeyValue', 1),
        droppedAttributesCount: { type: 'uint32', id: 2 },
      },
    },
    Event: {
      fields: {
        timeUnixNano: { type: 'fixed64', id: 1 },
        name: { type: 'string', id: 2 },
        attributes: repeated('KeyValue', 3),
        droppedAttributesCount: { type: 'uint32', id: 4 },
      },
    },
    Link: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        attributes: repeated('KeyValue', 4),
        droppedAttributesCount: { type: 'uint32', id: 5 },
        flags: { type: 'fixed32', id: 6 },
      },
    },
    // `code` is the StatusCode enum (0 unset, 1 ok, 2 error); field 1 is reserved.
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        parentSpanId: { type: 'bytes', id: 4 },
        flags: { type: 'fixed32', id: 16 },
        name: { type: 'string', id: 5 },
        // The SpanKind enum.
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: repeated('KeyValue', 9),
        droppedAttributesCount: { type: 'uint32', id: 10 },
        events: repeated('Event', 11),
        droppedEventsCount: { type: 'uint32', id: 12 },
        links: repeated('Link', 13),
        droppedLinksCount: { type: 'uint32', id: 14 },
        status: { type: 'Status', id: 15 },
      },
    },
    ScopeSpans: {
      fields: {
        scope: { type: 'InstrumentationScope', id: 1 },
        spans: repeated('Span', 2),
        schemaUrl: { type: 'string', id: 3 },
      },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: repeated('ScopeSpans', 2),
        schemaUrl: { type: 'string', id: 3 },
      },
    },
    ExportTraceServiceRequest: { fields: { resourceSpans: repeated('ResourceSpans', 1) } },
    ExportTracePartialSuccess: {
      fields: {
        rejectedSpans: { type: 'int64', id: 1 },
        errorMessage: { type: 'string', id: 2 },
      },
    },
    // google.rpc.Status: the body of an error answer.
    RpcStatus: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } },
    ExportTraceServiceResponse: {
      fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } },
    },
  },
};

const root = protobuf.Root.fromJSON(DESCRIPTOR);
const requestType = root.lookupType('ExportTraceServiceRequest');
const responseType = root.lookupType('ExportTraceServiceResponse');
const statusType = root.lookupType('RpcStatus');

/** Fields holding span or trace ids: bytes on the wire, hex in OTLP/JSON. */
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Rewrites the decoded ids (base64 from `toObject`) as hex, in place, with its own stack. */
function idsToHex(value: unknown): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (const element of item as unknown[]) pending.push(element);
    } else if (typeof item === 'object' && item !== null) {
      const record = item as Record<string, unknown>;
      for (const key in record) {
        const field = record[key];
        if (ID_FIELDS.has(key) && typeof field === 'string')
          record[key] = Buffer.from(field, 'base64').toString('hex');
        else if (typeof field === 'object') pending.push(field);
      }
    }
  }
}

/**
 * An `ExportTraceServiceRequest` in protobuf as its OTLP/JSON document. Throws (protobufjs's
 * error) when the bytes are not such a message.
 */
export function decodeTraceRequest(bytes: Uint8Array): { resourceSpans: unknown[] } {
  const message = requestType.decode(bytes);
  const document = requestType.toObject(message, {
    longs: String,
    bytes: String,
    arrays: true,
  }) as { resourceSpans: unknown[] };
  idsToHex(document.resourceSpans);
  return document;
}

/** An OTLP/JSON document as an `ExportTraceServiceRequest` in protobuf (tests and the benchmark). */
export function encodeTraceRequest(document: { resourceSpans: unknown[] }): Uint8Array {
  const copy = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  hexToBase64(copy);
  return requestType.encode(requestType.fromObject(copy)).finish();
}

function hexToBase64(value: unknown): void {
  if (Array.isArray(value)) for (const element of value as unknown[]) hexToBase64(element);
  else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const field = record[key];
      if (ID_FIELDS.has(key) && typeof field === 'string')
        record[key] = Buffer.from(field, 'hex').toString('base64');
      else hexToBase64(field);
    }
  }
}

/**
 * The answer to an accepted export: an `ExportTraceServiceResponse`, empty when every span was
 * taken, else with `partialSuccess` saying how many were rejected and why.
 */
export function encodeTraceResponse(rejected?: { spans: number; message: string }): Uint8Array {
  const message = rejected
    ? { partialSuccess: { rejectedSpans: rejected.spans, errorMessage: rejected.message } }
    : {};
  return responseType.encode(responseType.fromObject(message)).finish();
}

/** An error answer's body in protobuf: a `google.rpc.Status` with its gRPC code and message. */
export function encodeErrorStatus(code: number, message: string): Uint8Array {
  return statusType.encode(statusType.fromObject({ code, message })).finish();
}
