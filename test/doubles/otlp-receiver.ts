import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

// The messages of opentelemetry/proto/collector/trace/v1 that a trace export carries, with the
// field numbers of the OTLP protocol (opentelemetry-proto v1), for protobufjs to decode.
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; repeated Event events = 11;
  uint32 dropped_events_count = 12; repeated Link links = 13; uint32 dropped_links_count = 14;
  Status status = 15; fixed32 flags = 16;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;
const ExportRequest = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

/** One received span, ids as hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP SpanKind). */
  kind: number;
  attributes: Record<string, unknown>;
  /** Links to other spans, as `traceId:spanId`. */
  links: string[];
  statusCode: number;
  resource: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));

/** Bytes (protobuf, decoded as base64 by toObject) or hex (OTLP JSON) ids, as hex. */
const hexId = (id: string | undefined, encoding: 'base64' | 'hex') =>
  id ? (encoding === 'hex' ? id : Buffer.from(id, 'base64').toString('hex')) : '';

/** The spans of one export request, in the shape protobufjs' toObject and OTLP JSON share (camelCase). */
function spansOf(request: any, idEncoding: 'base64' | 'hex'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        out.push({
          traceId: hexId(span.traceId, idEncoding),
          spanId: hexId(span.spanId, idEncoding),
          parentSpanId: hexId(span.parentSpanId, idEncoding),
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map(
            (link: any) => `${hexId(link.traceId, idEncoding)}:${hexId(link.spanId, idEncoding)}`,
          ),
          statusCode: span.status?.code ?? 0,
          resource,
        });
  }
  return out;
}

/** A loopback OTLP/HTTP trace receiver that decodes what arrives (protobuf or JSON). */
export interface OtlpReceiver {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT (exports go to `/v1/traces` under it). */
  url: string;
  spans: ReceivedSpan[];
  /** The Content-Type of every export received. */
  contentTypes: string[];
  /** Every export body as received (for secret scans). */
  raw: Buffer[];
  close(): Promise<void>;
}

/** Starts the receiver on an ephemeral loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> = { spans: [], contentTypes: [], raw: [] };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const type = req.headers['content-type'] ?? '';
      receiver.raw.push(body);
      receiver.contentTypes.push(type);
      if (req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (type.startsWith('application/x-protobuf')) {
        const decoded = ExportRequest.toObject(ExportRequest.decode(body), { bytes: String, longs: String });
        receiver.spans.push(...spansOf(decoded, 'base64'));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        receiver.spans.push(...spansOf(JSON.parse(body.toString('utf8')), 'hex'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
