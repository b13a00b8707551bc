import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromCallback, waitFor, type AnyActorRef } from 'xstate';
import { planChat } from '../actors/chat/chat-plan.js';
import { completionMachine, type RunPassEvent, type RunPassInput } from '../actors/chat/completion-machine.js';
import { ChatCompletionRequestSchema } from '../protocols/chat.js';

const test = suite('completion machine: phases, live input, cancel and failure');

type Script = (input: RunPassInput, send: (event: RunPassEvent) => void) => void;

/** A machine whose backend passes follow `script`, recording every pass it was asked to run. */
function run(options: { body: Record<string, unknown>; script: Script }) {
  const request = ChatCompletionRequestSchema.parse({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'hello there' }],
    max_tokens: 20,
    ...options.body,
  });
  const passes: RunPassInput[] = [];
  const machine = completionMachine.provide({
    actors: {
      runPass: fromCallback<RunPassEvent, RunPassInput>(({ input, sendBack }) => {
        passes.push(input);
        options.script(input, sendBack);
      }),
    },
  });
  const emitted: string[] = [];
  const actor = createActor(machine, {
    input: {
      id: 'chatcmpl-test',
      n: request.n,
      conversation: request.messages,
      plan: planChat(request, 10, 1000),
      port: null,
      preprocessed: { promptTokens: 5, completionTokens: 0 },
    },
  });
  actor.on('*', (event) => emitted.push(event.type === 'phase' ? `phase:${event.phase}` : event.type));
  return { actor: actor.start(), passes, emitted };
}

/** Resolves once the run has ended (its passes are scripted with microtasks: no timers to wait for). */
const ended = (actor: AnyActorRef) => waitFor(actor, (snapshot: { status: string }) => snapshot.status !== 'active');

const answer = (text: string, usage = { promptTokens: 10, completionTokens: 3 }) => ({
  type: 'PASS.DONE' as const,
  choices: [{ text, toolCalls: [], finishReason: 'stop' as const, usage }],
});
const instant: Script = (input, send) => queueMicrotask(() => send(answer(`${input.pass} text`)));

test('a simple request makes one answering pass and completes with its usage plus preprocessing', async () => {
  const { actor, passes } = run({ body: {}, script: instant });
  await ended(actor);
  assert.is(actor.getSnapshot().value, 'completed');
  assert.equal(
    passes.map((p) => p.pass),
    ['answer'],
  );
  assert.equal(actor.getSnapshot().context.usage, { promptTokens: 15, completionTokens: 3 });
  assert.equal(actor.getSnapshot().output, { status: 'completed' });
});

test('a complex request with enable_judge goes planning, answering, checking, judging', async () => {
  const { actor, passes, emitted } = run({ body: { enable_judge: true }, script: instant });
  await ended(actor);
  assert.is(actor.getSnapshot().value, 'completed');
  assert.equal(
    passes.map((p) => p.pass),
    ['plan', 'draft', 'check', 'judge'],
  );
  assert.equal(emitted, ['phase:plan', 'phase:draft', 'phase:check', 'phase:judge']);
  assert.is(
    actor.getSnapshot().context.answers[0]!.text,
    'draft text',
    'the draft is the answer; checks stay internal',
  );
  assert.ok(JSON.stringify(passes[1]!.choices[0]).includes('plan text'), 'the draft reads the plan');
  assert.is(actor.getSnapshot().context.usage.promptTokens, 5 + 4 * 10);
});

test('live input joins the next pass and is marked with it', async () => {
  let release: () => void = () => {};
  const { actor, passes } = run({
    body: { response_mode: 'complex' },
    script: (input, send) => {
      if (input.pass === 'plan') release = () => send(answer('plan'));
      else queueMicrotask(() => send(answer(input.pass)));
    },
  });
  actor.send({
    type: 'LIVE_INPUT',
    content: 'also Rome',
    questionId: null,
    source: 'api_live_input',
    modality: 'text',
    at: 1,
  });
  release();
  await ended(actor);
  assert.is(actor.getSnapshot().context.liveInputs[0]!.usedIn, 'draft');
  assert.ok(JSON.stringify(passes[1]!.choices[0]).includes('also Rome'));
  assert.not.ok(JSON.stringify(passes[0]!.choices[0]).includes('also Rome'));
});

test('cancel mid-answer ends cancelled, keeps the partial text and bills it', () => {
  const { actor, emitted } = run({ body: {}, script: () => {} });
  actor.send({ type: 'CANCEL', reason: 'enough', partial: ['partial words'] });
  const { value, context } = actor.getSnapshot();
  assert.is(value, 'cancelled');
  assert.is(context.cancelReason, 'enough');
  assert.is(context.answers[0]!.text, 'partial words');
  assert.is(context.usage.completionTokens, 3, "'partial' is two tokens by the counting rule, 'words' one");
  assert.ok(context.usage.promptTokens > 5);
  assert.equal(emitted, ['phase:answer']);
});

test('cancel during planning bills the plan tokens but shows no plan text', () => {
  const { actor } = run({ body: { response_mode: 'complex' }, script: () => {} });
  actor.send({ type: 'CANCEL', reason: null, partial: ['secret plan'] });
  const { context } = actor.getSnapshot();
  assert.equal(context.answers, []);
  assert.is(context.usage.completionTokens, 2);
});

test('a failed pass ends in failed with the backend classification', async () => {
  const { actor } = run({
    body: {},
    script: (_i, send) =>
      queueMicrotask(() =>
        send({ type: 'PASS.FAILED', error: { kind: 'upstream_timeout', message: 'slow', retryAfterMs: null } }),
      ),
  });
  await ended(actor);
  assert.is(actor.getSnapshot().value, 'failed');
  assert.is(actor.getSnapshot().context.error!.kind, 'upstream_timeout');
});

test('a tool-calling answer skips the completeness check', async () => {
  const { actor, passes } = run({
    body: { response_mode: 'complex' },
    script: (input, send) =>
      queueMicrotask(() =>
        send(
          input.pass === 'draft'
            ? {
                type: 'PASS.DONE',
                choices: [
                  {
                    text: '',
                    toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }],
                    finishReason: 'tool_calls',
                    usage: { promptTokens: 1, completionTokens: 1 },
                  },
                ],
              }
            : answer('x'),
        ),
      ),
  });
  await ended(actor);
  assert.is(actor.getSnapshot().value, 'completed');
  assert.equal(
    passes.map((p) => p.pass),
    ['plan', 'draft'],
  );
});

test.run();
