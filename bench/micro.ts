import { rmSync } from 'node:fs';
import { Bench } from 'tinybench';
import { Router } from '../http/router.js';
import { ChatCompletionRequestSchema } from '../protocols/chat.js';
import { AccountServices } from '../actors/accounts/account-services.js';
import { ChatService } from '../actors/chat/chat-service.js';
import { collectAnswer } from '../actors/chat/collect-answer.js';
import type { PartResolverOptions } from '../actors/chat/parts/part-context.js';
import { ResponseCache } from '../actors/chat/response-cache.js';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../backends/chat-backend.js';
import { requireModel } from '../protocols/models.js';
import { systemClock } from '../runtime/clock.js';
import { ActorRegistry } from '../runtime/host/actor-registry.js';
import { createLogger } from '../runtime/logger.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import { tempDataDir } from '../test/harness.js';
import { SseDecoder } from '../protocols/sse-decoder.js';
import { realtimeFrameTasks } from './realtime/frame-cost.js';
import { awkwardSseChunks, SSE_STREAM_EVENTS } from './sse-stream-sample.js';

/** One figure of a micro benchmark, with its baseline's name when it has one. */
export interface MicroResult {
  group: string;
  name: string;
  baseline: boolean;
  opsPerSecond: number;
  p50Us: number;
  p99Us: number;
  samples: number;
}

const CHAT_BODY = JSON.stringify({
  model: 'pro-1',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Summarise the plot of a short story about a lighthouse keeper in three sentences.' },
  ],
  temperature: 0.3,
  max_tokens: 256,
  stream: true,
  stream_options: { include_usage: true },
  metadata: { trace: 'bench' },
});

const INSTANT_REPLY: readonly ChatBackendEvent[] = [
  { type: 'delta', text: 'Hello! How can I help you today?' },
  { type: 'done', finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 9 } },
];

/** A backend that answers at once with a fixed short reply in one piece, as an instant upstream does. */
const instantBackend: ChatBackend = {
  name: 'instant',
  latency: { ttftMs: 0, tokensPerSecond: 0 },
  stream: () => ({
    [Symbol.asyncIterator]() {
      let next = 0;
      return {
        next: (): Promise<IteratorResult<ChatBackendEvent>> =>
          Promise.resolve(
            next < INSTANT_REPLY.length
              ? { value: INSTANT_REPLY[next++]!, done: false }
              : { value: undefined, done: true },
          ),
      };
    },
  }),
};

function buildRouter(): Router<string> {
  const router = new Router<string>();
  const resources = ['models', 'files', 'chat/sessions', 'account/tokens', 'videos/generations', 'audio/speech'];
  for (const resource of resources) {
    router.add('GET', `/v1/${resource}`, `${resource}:list`);
    router.add('GET', `/v1/${resource}/:id`, `${resource}:get`);
    router.add('POST', `/v1/${resource}/:id/cancel`, `${resource}:cancel`);
  }
  return router;
}

/**
 * The upstream relay's SSE decode: a 20-chunk OpenAI-style stream in awkward byte pieces, decoded
 * to events, beside the least a decoder can do (UTF-8 decode, cut at blank lines, drop `data: `).
 */
function addSseDecode(add: (group: string, name: string, baseline: boolean, fn: () => unknown) => void): void {
  const pieces = awkwardSseChunks();
  add(
    'sse decode',
    `SseDecoder (eventsource-parser): ${SSE_STREAM_EVENTS} events in ${pieces.length} pieces`,
    false,
    () => {
      let events = 0;
      const decoder = new SseDecoder(() => events++);
      for (const piece of pieces) decoder.push(piece);
      decoder.end();
      if (events !== SSE_STREAM_EVENTS) throw new Error(`decoded ${events} events, not ${SSE_STREAM_EVENTS}`);
    },
  );
  add('sse decode', 'baseline: TextDecoder + cut at blank lines', true, () => {
    const utf8 = new TextDecoder();
    let carry = '';
    let events = 0;
    for (const piece of pieces) {
      const text = carry + utf8.decode(piece, { stream: true });
      let start = 0;
      for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n', start)) {
        if (text.slice(start + 6, at) !== '') events++;
        start = at + 2;
      }
      carry = text.slice(start);
    }
    if (events !== SSE_STREAM_EVENTS) throw new Error(`cut ${events} events`);
  });
}

/** A finished tinybench run as rows, each task under the group and baseline flag it was added with. */
export function microResults(bench: Bench, groups: Record<string, { name: string; baseline: boolean }>): MicroResult[] {
  return bench.tasks.map((task) => {
    const result = task.result as unknown as {
      latency?: { p50: number; p99: number; samplesCount?: number };
      throughput?: { mean: number };
      samplesCount?: number;
    };
    return {
      group: groups[task.name]!.name,
      name: task.name,
      baseline: groups[task.name]!.baseline,
      opsPerSecond: Math.round(result.throughput?.mean ?? 0),
      p50Us: Number(((result.latency?.p50 ?? 0) * 1000).toFixed(3)),
      p99Us: Number(((result.latency?.p99 ?? 0) * 1000).toFixed(3)),
      samples: result.latency?.samplesCount ?? result.samplesCount ?? 0,
    };
  });
}

/** Runs the micro benchmarks: each figure beside a baseline doing the least possible same work. */
export async function runMicro(options: { timeMs: number }): Promise<MicroResult[]> {
  const dir = tempDataDir();
  const store = LmdbStore.open(dir);
  const services = new AccountServices(store, systemClock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const created = await services.createAccount({
    email: 'bench@example.com',
    password: null,
    creditMicros: 1e12,
    tokenLabel: 'bench',
  });
  const accountId = created!.account.id;
  const tokenId = created!.token!.record.id;
  const tokenValue = created!.token!.value;
  const router = buildRouter();
  const flat = new Map([['GET /v1/chat/sessions/sess_123', 'chat/sessions:get']]);
  const kv = store.table<{ n: number }>('bench');

  const groups: Record<string, { name: string; baseline: boolean }> = {};
  const bench = new Bench({ time: options.timeMs, warmupTime: Math.min(200, options.timeMs) });
  const add = (group: string, name: string, baseline: boolean, fn: () => unknown) => {
    groups[name] = { name: group, baseline };
    bench.add(name, fn);
  };

  add('router', 'router.match /v1/chat/sessions/:id', false, () => router.match('GET', '/v1/chat/sessions/sess_123'));
  add('router', 'baseline: Map.get of the full path', true, () => flat.get('GET /v1/chat/sessions/sess_123'));
  add('chat request', 'JSON.parse + zod ChatCompletionRequest', false, () =>
    ChatCompletionRequestSchema.safeParse(JSON.parse(CHAT_BODY)),
  );
  add('chat request', 'baseline: JSON.parse only', true, () => JSON.parse(CHAT_BODY));
  add('perimeter', 'token lookup (sha256 + LMDB get)', false, () => services.tokens.findByValue(tokenValue));
  add('ledger', 'hold + settle (one LMDB transaction)', false, async () => {
    const hold = services.ledger.hold({ accountId, tokenId, amount: 5000 });
    await services.ledger.settle(hold, {
      charge: 1234,
      description: 'bench',
      requestId: null,
      model: 'pro-1',
      promptTokens: 10,
      completionTokens: 20,
    });
  });
  add('ledger', 'baseline: bare LMDB transaction with one put', true, () =>
    store.transaction(() => void kv.put('k', { n: 1 })),
  );
  add('ledger', 'hold + release (in memory, no charge)', false, () => {
    services.ledger.release(services.ledger.hold({ accountId, tokenId, amount: 5000 }));
  });

  addSseDecode(add);
  // A realtime call's input path: one 20 ms append through a live call's connection.
  const frames = await realtimeFrameTasks();
  for (const task of frames.tasks) add(task.group, task.name, task.baseline, task.fn);
  // The hot path's CPU: one non-streaming, one-pass completion (plan, hold, direct run, settle,
  // registry), cache off, on the memory store so the disk's commit latency does not hide it.
  const memory = new MemoryStore();
  const inMemory = new AccountServices(memory, systemClock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const payer = await inMemory.createAccount({
    email: 'bench-chat@example.com',
    password: null,
    creditMicros: 1e12,
    tokenLabel: 'bench',
  });
  const chatAccount = payer!.account.id;
  const chatToken = payer!.token!.record.id;
  const chat = new ChatService({
    billing: inMemory.ledger,
    backend: instantBackend,
    registry: new ActorRegistry(systemClock),
    cache: new ResponseCache(memory, systemClock, 0),
    parts: {} as PartResolverOptions,
    clock: systemClock,
    logger: createLogger('silent'),
  });
  const request = ChatCompletionRequestSchema.parse({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Say hello.' }],
    max_tokens: 64,
  });
  const model = requireModel('pro-1');
  const call = { accountId: chatAccount, tokenId: chatToken, requestId: 'req', request, model };
  add('chat completion', 'ChatService.complete, one pass (hold, direct run, settle; memory store)', false, () =>
    chat.complete({ ...call, signal: new AbortController().signal }),
  );
  add('chat completion', 'baseline: backend read to its end, then hold + settle', true, async () => {
    const signal = new AbortController().signal;
    const backendRequest: ChatBackendRequest = {
      model: 'pro-1',
      messages: request.messages,
      maxTokens: 64,
      temperature: null,
      stop: [],
      responseFormat: { type: 'text', schema: null },
      tools: [],
      toolChoice: 'auto',
      metadata: null,
      choiceIndex: 0,
      signal,
      stream: false,
    };
    const answer = await collectAnswer(instantBackend.stream(backendRequest), signal);
    const hold = inMemory.ledger.hold({ accountId: chatAccount, tokenId: chatToken, amount: 5000 });
    await inMemory.ledger.settle(hold, {
      charge: answer.usage.promptTokens * 12 + answer.usage.completionTokens * 48,
      description: 'bench',
      requestId: 'req',
      model: 'pro-1',
      promptTokens: answer.usage.promptTokens,
      completionTokens: answer.usage.completionTokens,
    });
  });

  await bench.run();
  const results = microResults(bench, groups);
  await frames.close();
  await services.close();
  await inMemory.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return results;
}
