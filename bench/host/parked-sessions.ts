// Parked chat sessions for the rehydration figure: the real session machine, spawned through the
// host with require_approval, so each rests in `awaiting_approval` with its approval deadline armed.
import { chatPlanForSession } from '../../actors/chat/chat-plan.js';
import { sessionMachine } from '../../actors/sessions/session-machine.js';
import { sessionParks } from '../../actors/sessions/session-states.js';
import type { SessionInput } from '../../actors/sessions/session-types.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import type { ActorHost } from '../../runtime/host/actor-host.js';
import { SESSION_MACHINE } from '../../actors/sessions/session-runtime.js';

/** The session machine as the host registers it (no runtime steps: a parked session invokes none), with the sessions' parking rule. */
export const parkedSessionMachine = { name: SESSION_MACHINE, logic: sessionMachine, parks: sessionParks };

const REQUEST = ChatCompletionRequestSchema.parse({
  model: 'pro-1',
  messages: [
    { role: 'system', content: 'You are a careful assistant. Answer in plain English.' },
    {
      role: 'user',
      content:
        'Plan a three-day walking trip around the lakes in the north, with one rest day and a budget under 500 USD.',
    },
  ],
  max_tokens: 512,
  require_approval: true,
});

/** The input the sessions route builds for a request that asks for approval (about 1 KB persisted). */
export function parkedSessionInput(id: string, at: number): SessionInput {
  const plan = chatPlanForSession(REQUEST, 40, 8192);
  return {
    id,
    preprocessed: { promptTokens: 0, completionTokens: 0 },
    accountId: 'acct_bench',
    tokenId: 'tok_bench',
    completionId: `chatcmpl-${id}`,
    model: REQUEST.model,
    conversation: REQUEST.messages,
    settings: {
      model: REQUEST.model,
      temperature: null,
      stop: [],
      responseFormat: { type: 'text', schema: null },
      tools: [],
      toolChoice: 'auto',
      metadata: null,
    },
    plan,
    quote: { minMicros: 1_000, holdMicros: 60_000, minSeconds: 0, maxSeconds: 12 },
    requireApproval: true,
    at,
    approvalTtlMs: 86_400_000,
    idleTtlMs: 86_400_000,
  };
}

/** Spawns `count` parked sessions through `host.spawn`, `concurrency` at a time; resolves when all are durable. */
export async function spawnParkedSessions(
  host: ActorHost,
  options: { count: number; concurrency: number; prefix: string },
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      const id = `${options.prefix}${next++}`;
      await host.spawn(SESSION_MACHINE, { id, ownerId: 'acct_bench', input: parkedSessionInput(id, Date.now()) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
}
