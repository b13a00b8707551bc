import type { z } from 'zod';
import type { McpScope } from '../../protocols/mcp.js';
import type { McpCaller } from './mcp-access.js';

/** MCP tool annotations (hints to clients about what a tool does). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What the user answered when asked to confirm: yes, no, or no answer (the client cannot ask, or did not). */
export type Confirmation = 'accept' | 'decline' | null;

/** What a tool call runs with. */
export interface ToolContext {
  /** The authenticated caller (null on the public docs endpoint). */
  caller: McpCaller | null;
  /** The HTTP request's id, recorded on charges and errors. */
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Asks the user to confirm an action through MCP elicitation when the client supports it; null otherwise. */
  confirm(message: string): Promise<Confirmation>;
}

/** What a tool answers: structured content (also sent as JSON text) and a one-line summary. */
export interface ToolResult {
  structured: Record<string, unknown>;
  summary: string;
}

/** One tool: its name, description, input schema, annotations, the scope it needs, and what it does. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  annotations: ToolAnnotations;
  /** The OAuth scope the tool needs (null: none). */
  scope: McpScope | null;
  /** Runs with arguments already parsed by `input`. */
  run(args: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** Defines a tool whose `run` gets its arguments typed by its schema. */
export function defineTool<S extends z.ZodType>(
  tool: Omit<McpTool, 'input' | 'run'> & { input: S; run(args: z.output<S>, ctx: ToolContext): Promise<ToolResult> },
): McpTool {
  // The endpoint parses the arguments with `input` before it calls `run`.
  return { ...tool, run: (args, ctx) => tool.run(args as z.output<S>, ctx) };
}

/** Annotations of a tool that only reads. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The caller of a product tool; the endpoint never runs one without. */
export function callerOf(ctx: ToolContext): McpCaller {
  if (!ctx.caller) throw new Error('product tool reached without a caller');
  return ctx.caller;
}
