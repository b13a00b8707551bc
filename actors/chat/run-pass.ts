import { fromCallback } from 'xstate';
import type { RunPassEvent, RunPassInput } from './completion-machine.js';
import { isVisiblePass, type PassChoiceResult, type PassFailure } from './completion.js';
import type { ChatBackend, ChatBackendRequest } from '../../backends/chat-backend.js';
import { RetryableError, TerminalError } from '../../backends/errors.js';
import { collectAnswer } from './collect-answer.js';

/** Text and tool-call fragments of the visible answer, relayed as they are produced. */
export type AnswerFragment =
  | { type: 'delta'; choice: number; text: string }
  | { type: 'tool_call'; choice: number; index: number; id?: string; name?: string; arguments: string };

/**
 * What a completion's passes share with the runtime: the backend, the request's settings, flow
 * control, where the visible answer goes, and the text of the pass in flight (for partial billing).
 */
export interface CompletionPort {
  backend: ChatBackend;
  base: Omit<ChatBackendRequest, 'messages' | 'maxTokens' | 'choiceIndex' | 'signal'>;
  /** Null while the consumer keeps up; otherwise a promise to wait on before producing more. */
  ready(): Promise<void> | null;
  relay(fragment: AnswerFragment): void;
  /** Text produced so far by each choice of the pass in flight. */
  partial: string[];
}

/** Classifies anything a backend threw; unknown failures count as upstream errors, never as answers. */
export function toPassFailure(err: unknown): PassFailure {
  if (err instanceof RetryableError) return { kind: err.kind, message: err.message, retryAfterMs: err.retryAfterMs };
  if (err instanceof TerminalError) return { kind: err.kind, message: err.message, retryAfterMs: null };
  return { kind: 'upstream_error', message: 'the model backend failed unexpectedly', retryAfterMs: null };
}

function runChoice(
  port: CompletionPort,
  input: RunPassInput,
  choice: number,
  signal: AbortSignal,
): Promise<PassChoiceResult> {
  const visible = isVisiblePass(input.pass);
  const request: ChatBackendRequest = {
    ...port.base,
    messages: input.choices[choice]!,
    maxTokens: input.maxTokens,
    choiceIndex: choice,
    signal,
  };
  return collectAnswer(port.backend.stream(request), signal, (event) => {
    if (event.type === 'delta') port.partial[choice] += event.text;
    if (visible)
      port.relay(
        event.type === 'delta' ? { type: 'delta', choice, text: event.text } : { ...event, type: 'tool_call', choice },
      );
    return port.ready();
  });
}

/**
 * The runtime's `runPass` actor: runs one pass for every choice against the backend, relays the
 * visible answer straight to the client, reports the end to the machine, and stops the backend
 * when the machine leaves the pass.
 */
export const runPassLogic = fromCallback<RunPassEvent, RunPassInput>(({ input, sendBack }) => {
  const port = input.port as CompletionPort;
  port.partial = input.choices.map(() => '');
  const controller = new AbortController();
  const send = (event: RunPassEvent) => {
    if (!controller.signal.aborted) sendBack(event);
  };
  Promise.all(input.choices.map((_, choice) => runChoice(port, input, choice, controller.signal))).then(
    (choices) => send({ type: 'PASS.DONE', choices }),
    (err: unknown) => send({ type: 'PASS.FAILED', error: toPassFailure(err) }),
  );
  return () => controller.abort(new Error('pass stopped'));
});
