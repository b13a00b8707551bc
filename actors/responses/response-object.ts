import type { ChatCost, ChatSvc } from '../../protocols/chat-response.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import type {
  OutputItem,
  ResponseCreateRequest,
  ResponseObject,
  ResponseStatus,
  ResponseUsage,
} from '../../protocols/responses.js';

/** What identifies a response from its creation on: its id, when, the model, and what was asked. */
export interface ResponseHead {
  id: string;
  createdAt: number;
  model: string;
  request: ResponseCreateRequest;
}

/** Where a response is and what it has: everything of the object that changes as it runs. */
export interface ResponseState {
  status: ResponseStatus;
  output: readonly OutputItem[];
  usage: TokenUsage | null;
  error?: { code: string; message: string } | null;
  incomplete?: 'max_output_tokens' | null;
  svc?: ChatSvc;
  cost?: ChatCost;
  /** `"svc":…,"cost":…` as JSON text: what {@link encodeResponse} writes instead of `svc` and `cost`. */
  charge?: string;
}

/** `usage` as the Responses API names it. */
export function responseUsage(usage: TokenUsage): ResponseUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** The `response` object: the request's settings echoed as OpenAI does, and the state. */
export function responseObject(head: ResponseHead, state: ResponseState): ResponseObject {
  const { request } = head;
  return {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: state.status,
    background: request.background,
    error: state.error ?? null,
    incomplete_details: state.incomplete ? { reason: state.incomplete } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: head.model,
    output: [...state.output],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: request.store,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? 'disabled',
    usage: state.usage ? responseUsage(state.usage) : null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
    ...(state.svc && { svc: state.svc }),
    ...(state.cost && { cost: state.cost }),
  };
}

/** A response's JSON text, and the parts of it a stored response keeps (see response-store.ts). */
export interface EncodedResponse {
  /** Exactly `JSON.stringify(responseObject(head, state))`. */
  json: string;
  /** The `output` items' JSON text. */
  output: string;
  /** `"svc":…,"cost":…` as sent (the tariff of the day, kept as it was), or null without them. */
  charge: string | null;
}

const stringify = JSON.stringify;

/** {@link responseUsage}'s JSON text. */
const usageJson = ({ promptTokens, completionTokens }: TokenUsage) =>
  `{"input_tokens":${promptTokens},"input_tokens_details":{"cached_tokens":0},"output_tokens":${completionTokens}` +
  `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${promptTokens + completionTokens}}`;

/** The settings echoed between `output` and `usage`, as JSON text. */
function settingsJson(request: ResponseCreateRequest): string {
  return (
    `,"parallel_tool_calls":${stringify(request.parallel_tool_calls ?? true)}` +
    `,"previous_response_id":${stringify(request.previous_response_id ?? null)}` +
    `,"reasoning":{"effort":null,"summary":null},"store":${stringify(request.store)}` +
    `,"temperature":${stringify(request.temperature ?? null)}` +
    `,"text":{"format":${request.text?.format ? stringify(request.text.format) : '{"type":"text"}'}}` +
    `,"tool_choice":${stringify(request.tool_choice ?? 'auto')},"tools":${stringify(request.tools ?? [])}` +
    `,"top_p":${stringify(request.top_p ?? null)},"truncation":${stringify(request.truncation ?? 'disabled')}`
  );
}

// Most requests set none of those settings: their text is one of two constants (stored or not).
const defaultSettings = (store: boolean) => settingsJson({ store } as ResponseCreateRequest);
const DEFAULT_SETTINGS = { stored: defaultSettings(true), unstored: defaultSettings(false) };

function isDefaultSettings(request: ResponseCreateRequest): boolean {
  return (
    request.parallel_tool_calls == null &&
    request.previous_response_id == null &&
    request.temperature == null &&
    request.text?.format == null &&
    request.tool_choice == null &&
    request.tools == null &&
    request.top_p == null &&
    request.truncation == null
  );
}

const orNull = (value: unknown) => (value == null ? 'null' : stringify(value));

/**
 * {@link responseObject}'s JSON text, built field by field in its order: no object of ~30 fields is
 * made and walked for every answer, and the parts a stored response keeps come out on the way.
 * `test/responses-encoding.test.ts` holds it equal to `JSON.stringify(responseObject(head, state))`.
 * `outputJson`: `state.output`'s JSON text when it was made already (for the stored record).
 */
export function encodeResponse(head: ResponseHead, state: ResponseState, outputJson?: string): EncodedResponse {
  const { request } = head;
  const output = outputJson ?? stringify(state.output);
  const charge =
    state.charge ??
    (state.svc || state.cost
      ? [state.svc && `"svc":${stringify(state.svc)}`, state.cost && `"cost":${stringify(state.cost)}`]
          .filter(Boolean)
          .join(',')
      : null);
  const { usage } = state;
  const settings = isDefaultSettings(request)
    ? DEFAULT_SETTINGS[request.store ? 'stored' : 'unstored']
    : settingsJson(request);
  const json =
    `{"id":${stringify(head.id)},"object":"response","created_at":${head.createdAt}` +
    `,"status":"${state.status}","background":${request.background},"error":${orNull(state.error)}` +
    `,"incomplete_details":${state.incomplete ? `{"reason":${stringify(state.incomplete)}}` : 'null'}` +
    `,"instructions":${orNull(request.instructions)},"max_output_tokens":${orNull(request.max_output_tokens)}` +
    `,"model":${stringify(head.model)},"output":${output}${settings}` +
    `,"usage":${usage ? usageJson(usage) : 'null'},"user":${orNull(request.user)}` +
    `,"metadata":${request.metadata == null ? '{}' : stringify(request.metadata)}${charge === null ? '' : `,${charge}`}}`;
  return { json, output, charge };
}
