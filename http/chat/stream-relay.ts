import type { PassName } from '../../actors/chat/chat-plan.js';
import type { ChatResult, CompletionSink, CompletionStreamEvent } from '../../actors/chat/chat-service.js';
import {
  chunkObject,
  deltaChoice,
  finalChunk,
  finishChoice,
  streamErrorEvent,
  toolCallDelta,
  type ChatCompletionChunk,
  type ChatSvc,
  type ChunkChoice,
  type ChunkDelta,
  type ChunkProgress,
  type CompletionHeader,
} from '../../protocols/chat-response.js';
import type { ApiError } from '../../protocols/errors.js';
import { SSE_DONE, SSE_HOLE, sseData, sseTemplate } from '../../protocols/sse.js';
import type { SseWriter } from '../sse-writer.js';

const PHASES: Record<PassName, { phase: ChunkProgress['phase']; text: string }> = {
  answer: { phase: 'answering', text: 'Writing the answer' },
  plan: { phase: 'planning', text: 'Planning the answer' },
  draft: { phase: 'answering', text: 'Writing the answer' },
  check: { phase: 'checking', text: 'Checking the answer is complete' },
  judge: { phase: 'judging', text: 'Verifying the answer' },
};

/**
 * Renders a completion's stream events as `chat.completion.chunk` SSE (the chat feature's sink).
 * The stream opens on the first thing worth sending, so a backend that fails before producing
 * anything still gets a plain HTTP error instead of a 200 with an error inside.
 */
export class StreamRelay implements CompletionSink {
  private opened = false;
  /** Choices whose first delta went out, one bit each (n is at most 8). */
  private started = 0;
  private phase: ChunkProgress['phase'] = 'answering';
  /** Per choice, its text chunk encoded once and cut where the text goes (null: encode each whole). */
  private readonly textChunks: ({ head: string; tail: string } | null)[] = [];

  constructor(
    private readonly writer: SseWriter,
    private readonly header: CompletionHeader,
    private readonly options: { n: number; progress: boolean; includeUsage: boolean },
  ) {}

  /** Whether the 200 and the SSE headers have gone out. */
  get isOpen(): boolean {
    return this.opened;
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.writer.open({ 'x-completion-id': this.header.id });
  }

  private chunk(choices: ChunkChoice[], extra: Pick<ChatCompletionChunk, 'progress'> = {}): void {
    this.open();
    this.writer.push(this.chunkText(choices, extra));
  }

  private chunkText(choices: ChunkChoice[], extra: Pick<ChatCompletionChunk, 'progress'> = {}): string {
    return sseData(chunkObject(this.header, choices, this.options.includeUsage ? { usage: null, ...extra } : extra));
  }

  private progress(event: ChunkProgress['event'], statusText: string): void {
    if (this.options.progress) this.chunk([], { progress: { event, status_text: statusText, phase: this.phase } });
  }

  /** The first delta of a choice names the role (and, as OpenAI does, no content yet for tool calls). */
  private roleFor(choice: number): ChunkDelta {
    const bit = 1 << choice;
    if (this.started & bit) return {};
    this.started |= bit;
    return { role: 'assistant', content: null };
  }

  /**
   * A choice's later text chunk (its role went out with the first): every one differs only in its
   * text, so it is spliced into the chunk encoded once, the same bytes as encoding it whole.
   */
  private textChunk(choice: number, text: string): void {
    let template = this.textChunks[choice];
    if (template === undefined) {
      const probe = this.chunkText([deltaChoice(choice, { content: SSE_HOLE })]);
      template = this.textChunks[choice] = sseTemplate(probe);
    }
    this.open();
    this.writer.push(
      template
        ? template.head + JSON.stringify(text) + template.tail
        : this.chunkText([deltaChoice(choice, { content: text })]),
    );
  }

  /** Flow control for the producer: null while the client keeps up. */
  ready(): Promise<void> | null {
    return this.writer.ready();
  }

  /** Relays one answer fragment or machine event (a method, so an open stream holds no closure of its own). */
  event(event: CompletionStreamEvent): void {
    switch (event.type) {
      case 'phase':
        this.phase = PHASES[event.phase].phase;
        this.progress('phase', PHASES[event.phase].text);
        return;
      case 'delta':
        if (this.started & (1 << event.choice)) this.textChunk(event.choice, event.text);
        else this.chunk([deltaChoice(event.choice, { ...this.roleFor(event.choice), content: event.text })]);
        return;
      case 'tool_call':
        this.chunk([
          deltaChoice(event.choice, {
            ...this.roleFor(event.choice),
            ...toolCallDelta(this.header.legacyFunctions, event),
          }),
        ]);
        return;
      case 'live_input':
        this.progress('live_input', `Live input #${event.seq} received; it joins the next phase`);
        return;
    }
  }

  /** Closes a run that ended (completed or cancelled): finish reasons, usage and charge, [DONE]. */
  finish(outcome: ChatResult['outcome'], svc: ChatSvc): void {
    if (outcome.status === 'cancelled')
      this.progress('cancelled', `Cancelled: ${outcome.cancelReason ?? 'by request'}`);
    outcome.choices.forEach((choice, index) => this.chunk([finishChoice(index, choice, this.header.legacyFunctions)]));
    for (let index = outcome.choices.length; index < this.options.n; index++)
      this.chunk([deltaChoice(index, this.roleFor(index), 'stop')]);
    this.writer.push(sseData(finalChunk(this.header, outcome.usage, svc)));
    this.writer.push(SSE_DONE);
    this.writer.end();
  }

  /** Ends an open stream with an error event, which the official SDKs raise; never a silent stop. */
  fail(error: ApiError, requestId: string): void {
    this.writer.push(sseData(streamErrorEvent(error, requestId)));
    this.writer.end();
  }
}
