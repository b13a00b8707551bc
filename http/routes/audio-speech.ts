import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import { SpeechRequestSchema } from '../../protocols/audio.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, type RouteDef } from '../route.js';
import { writeAudioStream } from '../views/audio-view.js';

/** POST /v1/audio/speech: text to speech, the audio streamed as it is made. */
export function audioSpeechRoutes({ audio }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/audio/speech',
      auth: 'token',
      schema: { body: SpeechRequestSchema, media: Object.values(AUDIO_CONTENT_TYPES) },
      async handler(ctx) {
        const request = await ctx.json(SpeechRequestSchema);
        const stream = await audio.speech.speak({
          accountId: accountOf(ctx.principal).id,
          tokenId: ctx.principal.token?.id ?? null,
          requestId: ctx.ex.requestId,
          request,
          signal: ctx.ex.signal,
        });
        await writeAudioStream(ctx.ex, stream);
        return undefined;
      },
    },
  ];
}
