import { fromCallback, fromPromise } from 'xstate';
import type { ChatBackend, ChatBackendRequest } from '../../backends/chat-backend.js';
import type { SpeechBackend } from '../../backends/speech.js';
import type { TranscriptionBackend } from '../../backends/transcription.js';
import { ApiError } from '../../protocols/errors.js';
import { realtimePriceMicros } from '../../protocols/pricing.js';
import { countTokens } from '../../protocols/tokens.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { Billing } from '../billing/billing.js';
import { StandingCharges, type Payer } from '../billing/charged-work.js';
import type { ResponseToolCall } from './call-events.js';
import { audioMs, type CallLine } from './call-line.js';
import type {
  RespondInput,
  ResponseFinished,
  SettleCallInput,
  TopUpInput,
  TranscribeInput,
  TranscriptionResult,
} from './call-context.js';
import { encodeTelephony } from './telephony-audio.js';
import { releaseTurnAudio } from './vad-audio.js';
import { runFixedLine, runResponse, type ResponseResult, type ResponseSink } from './respond.js';
import { conversationMessages } from './call-conversation.js';

/** The least a call may start with: below it, the ticket and the upgrade answer 402. */
export const MIN_CALL_HOLD_MICROS = 10_000;
/** A transcription taking longer than this fails the turn. */
const TRANSCRIBE_TIMEOUT_MS = 60_000;

/**
 * A signal that aborts with `signal` or after `ms`, whichever comes first, with the reasons
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` gives; `done` drops its timer and listener
 * at once (that pair keeps both until collected, and costs a weak registry entry per turn).
 */
function withTimeout(signal: AbortSignal, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, done: () => {} };
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  timer.unref(); // as AbortSignal.timeout's: it keeps no process alive
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** The ports the call's effects work through. */
export interface CallEffectPorts {
  chat: ChatBackend;
  speech: SpeechBackend;
  transcription: TranscriptionBackend;
  billing: Billing;
  clock: Clock;
  logger: Logger;
  /** The live lines of the calls open in this process, by call id. */
  lines: ReadonlyMap<string, CallLine>;
  /** What a call holds when it opens, and the step by which its hold grows. */
  holdStepMicros: number;
}

/** Who pays for a call; its ledger entry names the call. */
const payerOf = (callId: string, accountId: string, tokenId: string | null): Payer => ({
  accountId,
  tokenId,
  requestId: callId,
});

/**
 * The call machine's effects, as named actors for `.provide()`: `transcribe` (turn audio parked on
 * the call's line → text), `respond` (a model answer or the goodbye, streamed through the line, cut
 * on CANCEL), `topUp` (grow the hold to what the machine needs) and `settle` (the once-only
 * charge). A call's hold outlives the upgrade request, grows while it runs and is settled by the
 * machine's step, so it is a standing charge rather than `chargedWork`: in memory by call id (a
 * hold moves no money, so a crash loses nothing), and a call found open after a restart is settled
 * without it, once, by reference.
 */
export class CallEffects {
  private readonly charges: StandingCharges;

  constructor(private readonly ports: CallEffectPorts) {
    this.charges = new StandingCharges(ports.billing, 'realtime');
  }

  /** Throws 402 unless a call could start (the minimum hold fits). */
  assertCanOpen(accountId: string): void {
    this.ports.billing.assertCanHold(accountId, MIN_CALL_HOLD_MICROS);
  }

  /** Holds the opening amount for a new call: the step, or what is available if less (402 below the minimum). */
  openHold(callId: string, accountId: string, tokenId: string | null): number {
    const state = this.ports.billing.state(accountId);
    const amount = Math.min(this.ports.holdStepMicros, Math.max(0, state.balance - state.held));
    if (amount < MIN_CALL_HOLD_MICROS) this.ports.billing.assertCanHold(accountId, MIN_CALL_HOLD_MICROS);
    this.charges.ensure(callId, payerOf(callId, accountId, tokenId)).hold(amount);
    return amount;
  }

  /** Gives back what a call holds without charging (a call that never started). */
  releaseHolds(callId: string): void {
    this.charges.release(callId);
  }

  /** The named actors the call machine runs. */
  actors() {
    return {
      transcribe: fromPromise<TranscriptionResult[], TranscribeInput>(({ input, signal }) =>
        this.transcribe(input, signal),
      ),
      respond: fromCallback<{ type: 'CANCEL' }, RespondInput>(({ input, sendBack, receive }) => {
        const abort = new AbortController();
        let finished = false;
        receive((event) => {
          if (event.type === 'CANCEL') abort.abort();
        });
        void this.respond(input, abort.signal)
          .catch((err: unknown): ResponseFinished => {
            // A bug, not a backend failure (those are reported by `respond`): the machine still hears the end.
            this.ports.logger.error('realtime response effect failed', { call_id: input.callId, err });
            return {
              type: 'RESPONSE_FINISHED',
              responseId: input.responseId,
              status: 'failed',
              text: '',
              toolCalls: [],
              usage: { promptTokens: 0, completionTokens: 0, audioOutMs: 0 },
              failure: 'internal error',
              at: this.ports.clock.now(),
            };
          })
          .then((result) => {
            finished = true;
            sendBack(result);
          });
        // Stopped before it finished (the call's actor stopped): the response stops too.
        return () => {
          if (!finished) abort.abort();
        };
      }),
      // A promise so a refusal (402) arrives as the actor's error, like every other effect's failure.
      topUp: fromPromise<{ holdMicros: number }, TopUpInput>(({ input }) =>
        Promise.resolve().then(() => this.topUp(input)),
      ),
      settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(({ input }) =>
        this.settle(input),
      ),
    };
  }

  /** Transcribes the parked audio in order; the first failure ends the list (the turn is dropped). */
  private async transcribe(input: TranscribeInput, signal: AbortSignal): Promise<TranscriptionResult[]> {
    const line = this.ports.lines.get(input.callId);
    // Taken at once, so audio after a failed part is not left parked.
    const audios = input.audioKeys.map((key) => line?.take(key));
    // Not waiting for the turn's commit: reading it shows the client nothing and moves no money,
    // and its result then joins that commit when the store has not started it (one snapshot
    // written for both steps, one durable wait less before the answer). The answer itself still
    // starts only once all of it is durable (respond).
    const results: TranscriptionResult[] = [];
    for (const audio of audios) {
      if (!audio) {
        results.push({ ok: false, message: 'The audio of this turn is no longer available.' });
        break;
      }
      const bounded = withTimeout(signal, TRANSCRIBE_TIMEOUT_MS);
      try {
        const transcript = await this.ports.transcription.transcribe({
          audio,
          format: 'pcm16',
          language: input.language,
          prompt: input.prompt ?? null,
          signal: bounded.signal,
        });
        results.push({ ok: true, text: transcript.text, durationSeconds: transcript.durationSeconds });
        // Read: a VAD turn's buffer goes back for the next turns (backends read the audio before
        // they answer; on a failure it is left to the GC, as nothing then says it was read).
        releaseTurnAudio(audio);
      } catch (err) {
        results.push({ ok: false, message: err instanceof Error ? err.message : 'transcription failed' });
        break;
      } finally {
        bounded.done();
      }
    }
    return results;
  }

  /**
   * Runs one response through the call's line and reports how it ended. A cut (CANCEL) or failed
   * response is billed for what it produced: the prompt, the words so far, the audio sent. A call
   * without a line (brought back after a restart: nobody is listening) answers nothing.
   */
  private async respond(input: RespondInput, signal: AbortSignal): Promise<ResponseFinished> {
    const line = this.ports.lines.get(input.callId);
    const finished = (
      status: ResponseFinished['status'],
      text: string,
      usage: ResponseFinished['usage'],
      failure: string | null,
    ): ResponseFinished => ({
      type: 'RESPONSE_FINISHED',
      responseId: input.responseId,
      status,
      text,
      // Calls are the client's to run only once complete: a cut response leaves none.
      toolCalls: status === 'completed' ? calls.filter(Boolean).map((call) => ({ ...call })) : [],
      usage,
      failure,
      playedMs:
        firstAudioAt === null ? null : Math.min(audioMs(audioBytes), (cutAt ?? this.ports.clock.now()) - firstAudioAt),
      at: this.ports.clock.now(),
    });
    const calls: ResponseToolCall[] = [];
    // What the client has played, assuming it plays from the first frame on, in real time.
    let firstAudioAt: number | null = null;
    let cutAt: number | null = null;
    signal.addEventListener('abort', () => (cutAt = this.ports.clock.now()), { once: true });
    if (!line) {
      await Promise.resolve();
      return finished('cancelled', '', { promptTokens: 0, completionTokens: 0, audioOutMs: 0 }, null);
    }
    let text = '';
    // PCM bytes produced: usage counts audio time, whatever the wire format.
    let audioBytes = 0;
    const audioFormat = input.audioFormat ?? 'pcm';
    const { responseId, itemId } = input;
    const sink: ResponseSink = {
      text: (delta) => {
        text += delta;
        line.stream({ type: 'responseText', responseId, itemId, delta });
      },
      audio: (frame) => {
        firstAudioAt ??= this.ports.clock.now();
        audioBytes += frame.length;
        line.stream({ type: 'responseAudio', responseId, itemId, audio: encodeTelephony(frame, audioFormat) });
      },
      toolCall: (fragment) => {
        let call = calls[fragment.index];
        if (!call) {
          call = calls[fragment.index] = {
            itemId: `item_${randomBase62(20)}`,
            callId: fragment.id ?? `call_${randomBase62(20)}`,
            name: fragment.name ?? '',
            arguments: '',
          };
        }
        call.arguments += fragment.arguments;
        const { itemId: callItemId, callId, name } = call;
        line.stream({
          type: 'responseToolCall',
          responseId,
          call: { itemId: callItemId, callId, name },
          delta: fragment.arguments,
        });
      },
    };
    const plan = {
      responseId,
      itemId,
      modalities: input.modalities,
      voice: input.voice,
      language: input.language,
      signal,
    };
    try {
      // Nothing is produced before the response's opening is durable and sent: no delta waits, none bursts.
      await line.durable(signal);
      const result: ResponseResult =
        input.request === null
          ? await runFixedLine(input.line ?? '', this.ports.speech, plan, sink)
          : await runResponse(this.ports.chat, this.ports.speech, this.chatRequest(input.request, line), plan, sink);
      return finished('completed', result.text, result.usage, null);
    } catch (err) {
      const usage = {
        promptTokens: input.promptTokens,
        completionTokens: countTokens(text),
        audioOutMs: audioMs(audioBytes),
      };
      if (signal.aborted) return finished('cancelled', text, usage, null);
      this.ports.logger.warn('realtime response failed', { call_id: input.callId, err });
      return finished('failed', text, usage, err instanceof Error ? err.message : 'the response failed');
    }
  }

  /** The chat request of a model answer: its settings, and the call's conversation as it is now. */
  private chatRequest(
    request: NonNullable<RespondInput['request']>,
    line: CallLine,
  ): Omit<ChatBackendRequest, 'signal' | 'choiceIndex'> {
    return {
      model: request.model,
      messages: conversationMessages(request.instructions, line.conversation()),
      maxTokens: request.maxTokens,
      metadata: request.metadata,
      temperature: null,
      stop: [],
      responseFormat: { type: 'text', schema: null },
      tools: request.tools,
      toolChoice: request.toolChoice,
    };
  }

  /**
   * Makes sure the call holds `neededMicros`, holding another step (or what is left) when not;
   * 402 when the balance cannot cover it. A call nobody listens to any more gets no more money.
   */
  private topUp(input: TopUpInput): { holdMicros: number } {
    const held = this.charges.held(input.callId);
    if (input.neededMicros <= held) return { holdMicros: held };
    const state = this.ports.billing.state(input.accountId);
    const available = this.ports.lines.has(input.callId) ? Math.max(0, state.balance - state.held) : 0;
    if (held + available < input.neededMicros)
      throw new ApiError('insufficient_balance', 'The balance cannot cover the call any longer.');
    const amount = Math.min(available, Math.max(input.neededMicros - held, this.ports.holdStepMicros));
    this.charges.ensure(input.callId, payerOf(input.callId, input.accountId, input.tokenId)).hold(amount);
    return { holdMicros: held + amount };
  }

  /** The once-only charge of a call (by reference, so a re-run after a crash charges nothing more). */
  private async settle(input: SettleCallInput): Promise<{ micros: number; entryId: string | null }> {
    const usage = input.usage;
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    return this.charges.settle(
      input.callId,
      payerOf(input.callId, input.accountId, input.tokenId),
      {
        charge: Math.min(realtimePriceMicros(usage), input.capMicros),
        description: `realtime call ${input.callId}: ${seconds(usage.audioInMs)} s in, ${seconds(usage.audioOutMs)} s out`,
        model: null,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
      },
      input.capMicros,
    );
  }
}
