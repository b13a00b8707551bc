import { createHash } from 'node:crypto';
import { AUDIO_CONTENT_TYPES } from '../../backends/audio-codec.js';
import type { AudioEngines } from '../../backends/audio-engines.js';
import type { SoundEffectManifest } from '../../protocols/audio-objects.js';
import type { SoundEffectRequest } from '../../protocols/audio.js';
import { ApiError } from '../../protocols/errors.js';
import { MODEL_VERSION, requireModel } from '../../protocols/models.js';
import type { Clock } from '../../runtime/clock.js';
import { newId } from '../../runtime/ids.js';
import { AudioBilling, unitBill, type AudioBill, type AudioPayer } from './audio-billing.js';
import { engineFailure } from './audio-errors.js';
import type { ManifestRepo } from './manifest-repo.js';

/** One sound-effect request: who asks, the validated body, and the request's lifetime. */
export interface SoundEffectCall extends AudioPayer {
  request: SoundEffectRequest;
  signal: AbortSignal;
}

/** A made, charged sound effect: its bytes and the manifest that vouches for them. */
export interface SoundEffectResult {
  audio: Buffer;
  contentType: string;
  bill: AudioBill;
  /** The manifest's exact bytes, and their SHA-256 (hex): what the header carries. */
  manifestJson: string;
  manifestSha256: string;
}

/** What sound effects run on. */
export interface SoundEffectServiceOptions {
  engines: AudioEngines;
  billing: AudioBilling;
  manifests: ManifestRepo;
  clock: Clock;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Sound effects (spec 2.11) with a verification manifest: the effect is made whole (it is short),
 * encoded, hashed, and described by a manifest (request, output SHA-256, model version, engine,
 * time) stored under the SHA-256 of its bytes, which the response header carries; anyone holding
 * the digest can fetch the manifest and check both. Billed by output seconds, cost-plus.
 */
export class SoundEffectService {
  constructor(private readonly options: SoundEffectServiceOptions) {}

  /** Makes the effect, stores its manifest and charges it, in that order. */
  async generate(call: SoundEffectCall): Promise<SoundEffectResult> {
    const { request } = call;
    const model = requireModel(request.model);
    const { engines, billing } = this.options;
    const engine = engines.soundEffects;
    const bill = unitBill('sound_effect', request.duration_seconds, {
      backend: 'standard',
      engine: engine.backend.name,
      costMicrosPerBlock: engine.costMicrosPerBlock,
    });
    return billing.charge(call, bill, 'sound effect', model.id, async () => {
      const audio = await this.render(call);
      const manifest = this.describe(call, model.id, audio);
      // Fixed key order, no whitespace: these exact bytes are what the digest is of.
      const manifestJson = JSON.stringify(manifest);
      const manifestSha256 = sha256(manifestJson);
      await this.options.manifests.put(manifestSha256, {
        json: manifestJson,
        accountId: call.accountId,
        createdAt: this.options.clock.now(),
      });
      return { audio, contentType: AUDIO_CONTENT_TYPES[request.response_format], bill, manifestJson, manifestSha256 };
    });
  }

  /** The exact bytes of a manifest by their digest (public: the digest is the capability); 404 otherwise. */
  manifestJson(sha256Hex: string): string {
    const json = /^[0-9a-f]{64}$/.test(sha256Hex) ? this.options.manifests.get(sha256Hex) : undefined;
    if (json === undefined)
      throw new ApiError('not_found', `No sound-effect manifest ${sha256Hex.slice(0, 64)}.`, { param: 'sha256' });
    return json;
  }

  /** What the manifest says of a made effect. */
  private describe(call: SoundEffectCall, model: string, audio: Buffer): SoundEffectManifest {
    const { request } = call;
    const engine = this.options.engines.soundEffects.backend;
    return {
      object: 'audio.sound_effect.manifest',
      manifest_version: 1,
      id: newId('sfx'),
      created_at: Math.floor(this.options.clock.now() / 1000),
      model,
      model_version: MODEL_VERSION,
      backend: 'standard',
      engine: engine.name,
      request: {
        prompt: request.prompt,
        duration_seconds: request.duration_seconds,
        loop: request.loop,
        prompt_influence: request.prompt_influence,
        response_format: request.response_format,
      },
      output: {
        sha256: sha256(audio),
        bytes: audio.length,
        content_type: AUDIO_CONTENT_TYPES[request.response_format],
        duration_seconds: request.duration_seconds,
        sample_rate: engine.shape.sampleRate,
        channels: engine.shape.channels,
      },
    };
  }

  /** The effect from the engine, encoded whole. */
  private async render(call: SoundEffectCall): Promise<Buffer> {
    const { request, signal } = call;
    const { engines } = this.options;
    const engine = engines.soundEffects.backend;
    try {
      const pcm = await engine.generate({
        prompt: request.prompt,
        durationSeconds: request.duration_seconds,
        loop: request.loop,
        promptInfluence: request.prompt_influence,
        signal,
        metadata: request.metadata ?? null,
      });
      const chunks: Buffer[] = [];
      for await (const chunk of engines.codec.encode(once(pcm), {
        format: request.response_format,
        shape: engine.shape,
        signal,
      }))
        chunks.push(chunk);
      return Buffer.concat(chunks);
    } catch (err) {
      throw engineFailure(err, signal);
    }
  }
}

async function* once(pcm: Buffer): AsyncGenerator<Buffer, void, undefined> {
  yield pcm;
  await Promise.resolve();
}
