import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import { MusicRequestSchema } from '../../protocols/audio.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, type RouteDef } from '../route.js';
import { writeAudioStream } from '../views/audio-view.js';

/** POST /v1/music/generations: a piece of music (MP3 at 48 kHz by default), streamed as it is rendered. */
export function musicRoutes({ audio }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/music/generations',
      auth: 'token',
      schema: { body: MusicRequestSchema, media: Object.values(AUDIO_CONTENT_TYPES) },
      async handler(ctx) {
        const request = await ctx.json(MusicRequestSchema);
        const stream = await audio.music.compose({
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
