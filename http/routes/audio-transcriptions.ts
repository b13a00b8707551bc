import { z } from 'zod';
import type { TranscriptionResult } from '../../actors/audio/transcription-service.js';
import {
  AUDIO_JSON_MAX_BODY_BYTES,
  TranscriptionJsonSchema,
  TranscriptionOptionsSchema,
} from '../../protocols/audio.js';
import {
  TranscriptionDiarizedObjectSchema,
  TranscriptionObjectSchema,
  TranscriptionVerboseObjectSchema,
  TranscriptTextDeltaSchema,
  TranscriptTextDoneSchema,
} from '../../protocols/audio-objects.js';
import { ApiError, quoted } from '../../protocols/errors.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, type RequestContext, type RouteDef } from '../route.js';
import { SseWriter } from '../sse-writer.js';
import { billHeaders } from '../views/audio-view.js';
import { renderTranscription, transcriptionEvents } from '../views/audio-transcription-view.js';

/** Streams a finished transcription as OpenAI's SSE events, holding back while the client is slow. */
async function streamTranscription(ctx: RequestContext, result: TranscriptionResult): Promise<void> {
  const writer = new SseWriter(ctx.ex);
  writer.open(billHeaders(result.bill));
  for (const event of transcriptionEvents(result)) {
    writer.push(event);
    const ready = writer.ready();
    if (ready) await ready;
    if (ctx.ex.signal.aborted) break;
  }
  writer.end();
}

/**
 * POST /v1/audio/transcriptions: multipart/form-data as the SDK sends it (the file streamed to a
 * temporary blob), or JSON with `file_data` as base64; answered in the asked response format,
 * or as SSE `transcript.text.*` events with `stream: true`.
 */
export function audioTranscriptionRoutes({ audio }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/audio/transcriptions',
      auth: 'token',
      // JSON carries the file as base64 and is parsed whole; multipart is streamed with its own cap.
      maxBodyBytes: AUDIO_JSON_MAX_BODY_BYTES,
      schema: {
        body: z.intersection(TranscriptionJsonSchema, TranscriptionOptionsSchema),
        form: { fields: TranscriptionOptionsSchema, files: { file: 'audio/*' }, requiredFiles: ['file'] },
        // json, verbose_json or diarized_json as JSON; text and srt as text/plain, vtt as text/vtt; events with stream: true.
        response: z.union([
          TranscriptionObjectSchema,
          TranscriptionVerboseObjectSchema,
          TranscriptionDiarizedObjectSchema,
        ]),
        media: ['text/plain', 'text/vtt'],
        events: z.union([TranscriptTextDeltaSchema, TranscriptTextDoneSchema]),
      },
      async handler(ctx) {
        const call = {
          accountId: accountOf(ctx.principal).id,
          tokenId: ctx.principal.token?.id ?? null,
          requestId: ctx.ex.requestId,
          signal: ctx.ex.signal,
        };
        const type = ctx.ex.headers['content-type'] ?? '';
        let result: TranscriptionResult;
        if (/^multipart\/form-data/i.test(type)) {
          result = await audio.transcriptions.fromForm(call, {
            contentType: type,
            pipeBody: (sink, limit) => ctx.ex.pipeBody(sink, limit),
          });
        } else if (type === '' || /^application\/json/i.test(type)) {
          result = await audio.transcriptions.fromJson(call, await ctx.json(z.looseObject({})));
        } else {
          throw new ApiError(
            'unsupported_media_type',
            `Unsupported Content-Type "${quoted(type)}": send multipart/form-data (a "file" part) or application/json (file_data as base64).`,
          );
        }
        if (result.options.stream) {
          await streamTranscription(ctx, result);
          return undefined;
        }
        const rendered = renderTranscription(result);
        ctx.ex.send(200, { 'content-type': rendered.contentType, ...rendered.headers }, rendered.body);
        return undefined;
      },
    },
  ];
}
