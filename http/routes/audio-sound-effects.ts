import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import { SoundEffectRequestSchema } from '../../protocols/audio.js';
import { SoundEffectManifestSchema } from '../../protocols/audio-objects.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, type RouteDef } from '../route.js';
import { billHeaders } from '../views/audio-view.js';

/** Where a manifest is served, by the SHA-256 of its bytes. */
const manifestPath = (sha256: string) => `/v1/audio/sound-effects/manifests/${sha256}`;

/**
 * POST /v1/audio/sound-effects: the effect's bytes with its verification-manifest digest
 * (`X-Svc-Manifest-SHA256`, and where to fetch the manifest in `X-Svc-Manifest-URL`);
 * GET …/manifests/{sha256}: the manifest's exact bytes, public so anyone can verify.
 */
export function audioSoundEffectRoutes({ audio }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/audio/sound-effects',
      auth: 'token',
      schema: { body: SoundEffectRequestSchema, media: Object.values(AUDIO_CONTENT_TYPES) },
      async handler(ctx) {
        const request = await ctx.json(SoundEffectRequestSchema);
        const effect = await audio.soundEffects.generate({
          accountId: accountOf(ctx.principal).id,
          tokenId: ctx.principal.token?.id ?? null,
          requestId: ctx.ex.requestId,
          request,
          signal: ctx.ex.signal,
        });
        ctx.ex.send(
          200,
          {
            'content-type': effect.contentType,
            'x-content-type-options': 'nosniff',
            ...billHeaders(effect.bill),
            'x-svc-manifest-sha256': effect.manifestSha256,
            'x-svc-manifest-url': manifestPath(effect.manifestSha256),
          },
          effect.audio,
        );
        return undefined;
      },
    },
    {
      method: 'GET',
      path: '/v1/audio/sound-effects/manifests/:sha256',
      auth: 'public',
      schema: { response: SoundEffectManifestSchema },
      handler(ctx) {
        // The stored bytes as they are: their SHA-256 is the digest the effect's header carried.
        ctx.ex.send(
          200,
          { 'content-type': 'application/json', 'cache-control': 'public, max-age=31536000, immutable' },
          audio.soundEffects.manifestJson(ctx.params.sha256!),
        );
        return undefined;
      },
    },
  ];
}
