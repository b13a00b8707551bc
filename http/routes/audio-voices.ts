import { AUDIO_JSON_MAX_BODY_BYTES, VoiceCloneRequestSchema, VoiceListQuerySchema } from '../../protocols/audio.js';
import { VoiceDeletedObjectSchema, VoiceListObjectSchema, VoiceObjectSchema } from '../../protocols/audio-objects.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { billHeaders, voiceDeletedView, voiceListView, voiceView } from '../views/audio-view.js';

/** Cloned voices: create (a flat fee; Idempotency-Key honoured), list, read, delete; only the account's own. */
export function audioVoiceRoutes({ audio }: AppDeps): RouteDef[] {
  const accountIdOf = (ctx: RequestContext) => accountOf(ctx.principal).id;
  return [
    {
      method: 'POST',
      path: '/v1/audio/voices',
      auth: 'token',
      schema: { body: VoiceCloneRequestSchema, response: VoiceObjectSchema, status: [201, 200] },
      maxBodyBytes: AUDIO_JSON_MAX_BODY_BYTES,
      async handler(ctx) {
        const request = await ctx.json(VoiceCloneRequestSchema);
        const idempotencyKey = ctx.ex.headers['idempotency-key'];
        const { voice, bill, replayed } = await audio.voices.create({
          accountId: accountIdOf(ctx),
          tokenId: ctx.principal.token?.id ?? null,
          requestId: ctx.ex.requestId,
          request,
          idempotencyKey,
          signal: ctx.ex.signal,
        });
        const headers = { ...billHeaders(bill), ...(replayed && { 'idempotent-replayed': 'true' }) };
        return json(voiceView(voice, bill), replayed ? 200 : 201, headers);
      },
    },
    {
      method: 'GET',
      path: '/v1/audio/voices',
      auth: 'token',
      schema: { query: VoiceListQuerySchema, response: VoiceListObjectSchema },
      handler: (ctx) => json(voiceListView(audio.voices.list(accountIdOf(ctx), ctx.query(VoiceListQuerySchema)))),
    },
    {
      method: 'GET',
      path: '/v1/audio/voices/:voice_id',
      auth: 'token',
      schema: { response: VoiceObjectSchema },
      handler: (ctx) => json(voiceView(audio.voices.get(accountIdOf(ctx), ctx.params.voice_id!))),
    },
    {
      method: 'DELETE',
      path: '/v1/audio/voices/:voice_id',
      auth: 'token',
      schema: { response: VoiceDeletedObjectSchema },
      async handler(ctx) {
        await audio.voices.delete(accountIdOf(ctx), ctx.params.voice_id!);
        return json(voiceDeletedView(ctx.params.voice_id!));
      },
    },
  ];
}
