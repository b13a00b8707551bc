import type { CallCommand } from '../../actors/realtime/call-runtime.js';
import { SEMANTIC_VAD_SILENCE_MS, type SessionChange } from '../../actors/realtime/call-session.js';
import { base64DecodedLength, decodeBase64Into, decodeBase64Strict } from '../../protocols/base64.js';
import { MAX_JSON_DEPTH, pathBeyondDepth } from '../../protocols/json-bounds.js';
import {
  ClientEventSchema,
  CLIENT_EVENT_TYPES,
  type ClientEvent,
  type RealtimeTool,
  type RealtimeToolChoice,
  type SessionUpdate,
} from '../../protocols/realtime.js';
import type { ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type { AudioFormat } from '../../actors/realtime/telephony-audio.js';
import type { UnstampedEvent } from '../../protocols/realtime-events.js';
import { errorEvent } from './server-events.js';

/** A client message as a command for its call, or the `error` event that answers it. */
export type ParsedMessage = { command: CallCommand } | { error: UnstampedEvent<'error'> };

/** Parses one text frame: JSON, a known `type`, then its schema; each failure names the problem. */
export function parseClientMessage(text: string): ParsedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: errorEvent('invalid_json', 'The message is not valid JSON.') };
  }
  // The hot path (one append every 20 ms per call): a flat envelope is checked by hand, the audio
  // decoded strictly without a regex, and neither the depth walk nor the schema runs over it.
  const append = fastAppend(raw);
  if (append) return append;
  if (pathBeyondDepth(raw, MAX_JSON_DEPTH))
    return { error: errorEvent('invalid_value', `The message is nested more than ${MAX_JSON_DEPTH} levels deep.`) };
  const object = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown; event_id?: unknown }) : {};
  const type = object.type;
  const eventId = typeof object.event_id === 'string' ? object.event_id : null;
  if (typeof type !== 'string' || !CLIENT_EVENT_TYPES.includes(type as never)) {
    const named = typeof type === 'string' ? `Unknown message type "${type}".` : 'The message has no "type".';
    return {
      error: errorEvent('invalid_event', `${named} Understood: ${CLIENT_EVENT_TYPES.join(', ')}.`, {
        param: 'type',
        eventId,
      }),
    };
  }
  const parsed = ClientEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.');
    return {
      error: errorEvent('invalid_value', `Invalid ${type}${where ? ` at ${where}` : ''}: ${issue.message}`, {
        param: where || null,
        eventId,
      }),
    };
  }
  return { command: toCommand(parsed.data, eventId) };
}

/** The bytes every compact `{"type":"input_audio_buffer.append","audio":"…"}` starts with. */
const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Appends up to this size decode into one reused buffer; larger ones get their own. */
const SCRATCH_BYTES = 64 * 1024;

/**
 * Where the fast path decodes an append's audio: reused for every frame (the call takes the
 * samples during the command and keeps a copy of what it keeps), with one view per length.
 */
const scratch = {
  buffer: Buffer.allocUnsafeSlow(SCRATCH_BYTES),
  view: Buffer.alloc(0),
  /** `length` bytes of the buffer, as one view (the same object while frames keep their size). */
  of(length: number): Buffer {
    if (this.view.length !== length) this.view = this.buffer.subarray(0, length);
    return this.view;
  },
};

/**
 * Parses one text frame as it came off the socket. The common append, written compactly with
 * nothing but its type and audio (what SDKs and phone bridges send 50 times a second), is read
 * from the bytes: its base64 is checked on them and decoded into one reused buffer, with no UTF-8
 * decoding of the frame, no JSON parse and no buffer per frame. Its audio is then lent (see
 * `appendAudio`): valid until the next frame is parsed. Anything else, or an audio that does not
 * decode, takes {@link parseClientMessage}: the same command, or the same error.
 */
export function parseClientBytes(bytes: Buffer): ParsedMessage {
  const start = APPEND_HEAD.length;
  const end = bytes.length - 2; // before the closing `"}`
  if (
    end >= start &&
    bytes[end] === QUOTE &&
    bytes[end + 1] === 0x7d &&
    bytes.compare(APPEND_HEAD, 0, start, 0, start) === 0 &&
    bytes.indexOf(QUOTE, start) === end &&
    bytes.indexOf(BACKSLASH, start) === -1
  ) {
    // Bytes outside base64's alphabet (UTF-8 ones included) make the strict decoder refuse.
    const length = base64DecodedLength(bytes, start, end);
    if (length >= 0) {
      const audio = length <= SCRATCH_BYTES ? scratch.of(length) : Buffer.allocUnsafe(length);
      if (decodeBase64Into(bytes, start, end, audio))
        return { command: { type: 'appendAudio', audio, clientEventId: null } };
    }
  }
  return parseClientMessage(bytes.toString('utf8'));
}

/** An `input_audio_buffer.append` with only `type`, `audio` and `event_id` as strings, as a command; else null (the general path decides). */
function fastAppend(raw: unknown): ParsedMessage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const message = raw as Record<string, unknown>;
  if (message.type !== 'input_audio_buffer.append' || typeof message.audio !== 'string') return null;
  let keys = 0;
  for (const key in message) {
    if (key !== 'type' && key !== 'audio' && key !== 'event_id') return null;
    keys++;
  }
  const eventId = message.event_id;
  if (keys === 3 && typeof eventId !== 'string') return null;
  const clientEventId = typeof eventId === 'string' ? eventId : null;
  const audio = decodeBase64Strict(message.audio);
  if (!audio)
    return {
      error: errorEvent('invalid_value', 'Invalid input_audio_buffer.append at audio: must be base64', {
        param: 'audio',
        eventId: clientEventId,
      }),
    };
  return { command: { type: 'appendAudio', audio, clientEventId } };
}

/** The command a parsed client message asks for: wire names and base64 become the domain's. */
function toCommand(event: ClientEvent, clientEventId: string | null): CallCommand {
  switch (event.type) {
    case 'session.update':
      return { type: 'updateSession', change: sessionChange(event.session), clientEventId };
    case 'input_audio_buffer.append':
      return { type: 'appendAudio', audio: Buffer.from(event.audio, 'base64'), clientEventId };
    case 'input_audio_buffer.commit':
      return { type: 'commitAudio', clientEventId };
    case 'input_audio_buffer.clear':
      return { type: 'clearAudio', clientEventId };
    case 'conversation.item.create': {
      const wireItem = event.item;
      const id = wireItem.id ?? null;
      const previousItemId = event.previous_item_id ?? null;
      if (wireItem.type === 'function_call_output')
        return {
          type: 'addItem',
          item: { type: 'function_call_output', id, callId: wireItem.call_id, output: wireItem.output },
          previousItemId,
          clientEventId,
        };
      if (wireItem.type === 'function_call') {
        const { call_id: callId, name, arguments: args } = wireItem;
        const item = { type: 'function_call' as const, id, callId, name, arguments: args };
        return { type: 'addItem', item, previousItemId, clientEventId };
      }
      const content = wireItem.content.map((part) =>
        part.type === 'input_audio'
          ? {
              type: 'input_audio' as const,
              audio: Buffer.from(part.audio, 'base64'),
              transcript: part.transcript ?? null,
            }
          : { type: part.type, text: part.text },
      );
      return {
        type: 'addItem',
        item: { type: 'message', id, role: wireItem.role, content },
        previousItemId,
        clientEventId,
      };
    }
    case 'response.create': {
      const response = event.response ?? {};
      return {
        type: 'createResponse',
        request: {
          outputModalities: response.output_modalities ?? null,
          instructions: response.instructions ?? null,
          maxOutputTokens: response.max_output_tokens ?? null,
          metadata: response.metadata ?? null,
          tools: response.tools ? toolDefinitions(response.tools) : null,
          toolChoice: response.tool_choice ? toolChoice(response.tool_choice) : null,
        },
        clientEventId,
      };
    }
    case 'conversation.item.truncate':
      return {
        type: 'truncateItem',
        itemId: event.item_id,
        contentIndex: event.content_index,
        audioEndMs: event.audio_end_ms,
        clientEventId,
      };
    case 'conversation.item.delete':
      return { type: 'deleteItem', itemId: event.item_id, clientEventId };
    case 'conversation.item.retrieve':
      return { type: 'retrieveItem', itemId: event.item_id, clientEventId };
    case 'response.cancel':
      return { type: 'cancelResponse', responseId: event.response_id || null, clientEventId };
    case 'svc.realtime.end_ack':
      return { type: 'acknowledgeEnd', clientEventId };
  }
}

/** A `session.update` session as a change to the call's session. */
function sessionChange(update: SessionUpdate): SessionChange {
  const input = update.audio?.input;
  const output = update.audio?.output;
  const detection = input?.turn_detection;
  const change: SessionChange = {};
  if (update.type !== undefined) change.type = update.type;
  if (update.model !== undefined) change.model = update.model;
  if (update.output_modalities !== undefined) change.outputModalities = update.output_modalities;
  if (update.instructions !== undefined) change.instructions = update.instructions;
  if (update.max_output_tokens !== undefined) change.maxOutputTokens = update.max_output_tokens;
  if (detection === null) change.turnDetection = null;
  else if (detection?.type === 'semantic_vad') {
    change.turnDetection = {
      silenceDurationMs: SEMANTIC_VAD_SILENCE_MS[detection.eagerness ?? 'auto'],
      createResponse: detection.create_response,
      interruptResponse: detection.interrupt_response,
    };
  } else if (detection !== undefined) {
    change.turnDetection = {
      threshold: detection.threshold,
      prefixPaddingMs: detection.prefix_padding_ms,
      silenceDurationMs: detection.silence_duration_ms,
      createResponse: detection.create_response,
      interruptResponse: detection.interrupt_response,
    };
  }
  if (input?.transcription === null) change.transcription = null;
  else if (input?.transcription !== undefined)
    change.transcription = {
      model: input.transcription.model,
      language: input.transcription.language,
      prompt: input.transcription.prompt,
    };
  if (input?.format) change.inputFormat = formatOf(input.format.type);
  if (output?.format) change.outputFormat = formatOf(output.format.type);
  if (update.tools !== undefined) change.tools = toolDefinitions(update.tools);
  if (update.tool_choice !== undefined) change.toolChoice = toolChoice(update.tool_choice);
  if (output?.voice !== undefined) change.voice = output.voice;
  if (output?.speed !== undefined) change.speed = output.speed;
  return change;
}

/** A wire format's type as the call's. */
function formatOf(type: 'audio/pcm' | 'audio/pcmu' | 'audio/pcma'): AudioFormat {
  return type === 'audio/pcm' ? 'pcm' : type === 'audio/pcmu' ? 'pcmu' : 'pcma';
}

/** Wire tools as the chat backends' tool definitions. */
function toolDefinitions(tools: readonly RealtimeTool[]): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
  }));
}

/** A wire `tool_choice` as the chat backends' (a named function by its name). */
function toolChoice(choice: RealtimeToolChoice): ToolChoice {
  return typeof choice === 'string' ? choice : { name: choice.name };
}
