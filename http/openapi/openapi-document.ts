import { z } from 'zod';
import { ErrorEnvelopeSchema, HTTPValidationErrorSchema } from '../../protocols/error-schemas.js';
import type { AuthMode, RouteDef, RouteSchema } from '../route.js';

/** An OpenAPI 3.1 document (the parts this generator writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/** `/v1/files/:file_id` → `/v1/files/{file_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  public: [],
  token: [{ apiToken: [] }],
  session: [{ loginSession: [] }],
  account: [{ apiToken: [] }, { loginSession: [] }],
  admin: [{ adminKey: [] }],
};

const ERROR_REF = { $ref: '#/components/schemas/ErrorEnvelope' };
const errorResponse = (description: string, schema: unknown = ERROR_REF) => ({
  description,
  content: { 'application/json': { schema } },
});

/** JSON Schema (2020-12, which OpenAPI 3.1 uses) of a zod schema, for requests (`input`) or answers (`output`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}

function operationId(route: RouteDef): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter((word) => word && word !== 'v1');
  return [route.method.toLowerCase(), ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

function tagOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'v1' || parts[0] === 'admin') return parts[0] === 'admin' ? 'admin' : (parts[1] ?? 'v1');
  return parts[0] === '.well-known' ? 'mcp' : (parts[0] ?? 'root');
}

function parametersOf(route: RouteDef, schema: RouteSchema | undefined): unknown[] {
  const path = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (!schema?.query) return path;
  const query = jsonSchema(schema.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(query.required ?? []);
  return [
    ...path,
    ...Object.entries(query.properties ?? {}).map(([name, property]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema: property,
    })),
  ];
}

/** A multipart body: the text fields' schema with each file part added as binary. */
function formSchema(form: NonNullable<RouteSchema['form']>): {
  schema: Record<string, unknown>;
  encoding: Record<string, unknown>;
} {
  const fields = jsonSchema(form.fields, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  const files = Object.entries(form.files);
  const properties = {
    ...fields.properties,
    ...Object.fromEntries(files.map(([name, type]) => [name, { type: 'string', contentMediaType: type }])),
  };
  const required = [...(fields.required ?? []).filter((name) => !(name in form.files)), ...(form.requiredFiles ?? [])];
  const schema = { ...fields, type: 'object', properties, ...(required.length > 0 && { required }) };
  return { schema, encoding: Object.fromEntries(files.map(([name, type]) => [name, { contentType: type }])) };
}

function requestBodyOf(schema: RouteSchema | undefined): unknown {
  if (!schema) return undefined;
  const content: Record<string, unknown> = {};
  if (schema.body) content['application/json'] = { schema: jsonSchema(schema.body, 'input') };
  if (schema.form) content['multipart/form-data'] = formSchema(schema.form);
  if (schema.rawBody) content[schema.rawBody] = { schema: { type: 'string', contentMediaType: schema.rawBody } };
  return Object.keys(content).length > 0 ? { required: schema.bodyOptional !== true, content } : undefined;
}

const NO_BODY = new Set([101, 204, 304]);

/** The content of a success answer: JSON, SSE events and raw bytes, each as declared. */
function successContent(schema: RouteSchema | undefined): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  // Generic JSON only when nothing is declared (the contract test refuses it).
  if (schema?.response || !(schema?.events || schema?.media))
    content['application/json'] = {
      schema: schema?.response ? jsonSchema(schema.response, 'output') : { type: 'object' },
    };
  if (schema?.events) {
    content['text/event-stream'] = {
      schema: {
        type: 'string',
        description:
          'Server-sent events; each `data:` line is one JSON object of `x-event-data`, the stream ends with `data: [DONE]` where the API says so.',
      },
      'x-event-data': jsonSchema(schema.events, 'output'),
    };
  }
  for (const type of schema?.media ?? []) content[type] = { schema: { type: 'string', contentMediaType: type } };
  return content;
}

function successOf(schema: RouteSchema | undefined): Record<string, unknown> {
  const statuses =
    schema?.status === undefined ? [200] : typeof schema.status === 'number' ? [schema.status] : schema.status;
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      NO_BODY.has(status)
        ? { description: status === 101 ? 'Switching Protocols (a WebSocket upgrade).' : 'No content.' }
        : { description: 'Success.', content: successContent(schema) },
    ]),
  );
}

function foreignOperation(
  route: RouteDef,
  schema: RouteSchema,
  security: Record<string, string[]>[],
  responses: Record<string, unknown>,
): Record<string, unknown> {
  const requestBody = requestBodyOf(schema);
  const parameters = (schema.requiredHeaders ?? []).map((name) => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string' },
  }));
  return {
    operationId: operationId(route),
    summary: schema.summary ?? `${route.method} ${openApiPath(route.path)}`,
    tags: [tagOf(route.path)],
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody !== undefined && { requestBody }),
    responses,
    security,
  };
}

function operationOf(route: RouteDef): Record<string, unknown> {
  const schema = route.schema;
  const security = schema?.security ? schema.security.map((name) => ({ [name]: [] })) : SECURITY[route.auth];
  // A foreign wire format (the Messages API) answers its own envelope, validation included.
  const errors = schema?.errors ? jsonSchema(schema.errors, 'output') : undefined;
  if (errors)
    return foreignOperation(route, schema!, security, {
      ...successOf(schema),
      ...(security.length > 0 && { '401': errorResponse('Missing or invalid credentials.', errors) }),
      default: errorResponse("An error in this API's own envelope (docs/messages.md).", errors),
    });
  const validates = Boolean(schema?.body || schema?.form || schema?.query || route.path.includes(':'));
  const responses: Record<string, unknown> = {
    ...successOf(schema),
    ...(security.length > 0 && { '401': errorResponse('Missing or invalid credentials.') }),
    ...(validates && {
      '422': {
        description: 'Validation error (HTTPValidationError).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
      },
    }),
    default: errorResponse('An error in the envelope; `error.code` is one of the catalogue (docs/errors.md).'),
  };
  const requestBody = requestBodyOf(schema);
  const parameters = parametersOf(route, schema);
  return {
    operationId: operationId(route),
    summary: schema?.summary ?? `${route.method} ${openApiPath(route.path)}`,
    tags: [tagOf(route.path)],
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody !== undefined && { requestBody }),
    responses,
    security,
  };
}

/**
 * The OpenAPI 3.1 document of a route table, generated from the zod schemas each route declares
 * (requests, responses), the error envelope, and the security scheme of each auth mode. Every
 * served route is in it and every path in it is served: it is made from the same table.
 */
export function buildOpenApiDocument(
  routes: readonly RouteDef[],
  info: { version: string; serverUrl: string },
): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: info.version,
      description: 'An OpenAI-compatible multimodal model API (pro-1), generated from the route table.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: {
        ErrorEnvelope: jsonSchema(ErrorEnvelopeSchema, 'output'),
        HTTPValidationError: jsonSchema(HTTPValidationErrorSchema, 'output'),
      },
      securitySchemes: {
        apiToken: { type: 'http', scheme: 'bearer', description: 'An API token (sk-…) from POST /v1/account/tokens.' },
        loginSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'A login session token from POST /v1/auth/login.',
        },
        adminKey: { type: 'http', scheme: 'bearer', description: 'The operator key (SVC_ADMIN_KEY).' },
        anthropicApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'An API token (sk-…) as the Anthropic SDK sends it, on the Messages API routes.',
        },
        oauthAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An OAuth 2.1 access token from the issuer in SVC_OIDC_ISSUER for SVC_OIDC_AUDIENCE (scopes per tool: pro1:invoke, marketplace:read, orders:read, orders:write); /.well-known/oauth-protected-resource names the issuer once its live check passed.',
        },
      },
    },
  };
}

/** The document of the served routes, built once on first use (the table is fixed after boot). */
export class ApiContract {
  private routes: readonly RouteDef[] = [];
  private built: OpenApiDocument | null = null;

  constructor(private readonly info: { version: string; serverUrl: string }) {}

  /** Sets the route table (the composition root does, once the routes exist). */
  setRoutes(routes: readonly RouteDef[]): void {
    this.routes = routes;
    this.built = null;
  }

  /** The OpenAPI document. */
  document(): OpenApiDocument {
    this.built ??= buildOpenApiDocument(this.routes, this.info);
    return this.built;
  }
}
