import type { SoundEffectBackend, SoundEffectRequest } from '../sound-effects.js';
import { seedFromBytes } from './sim-media-seed.js';
import { readSimScript, scriptedFailure } from './sim-script.js';

/** The sim's sound effects: 48 kHz mono. */
const RATE = 48_000;

/** What a sound is made of: a tone, filtered noise, a slow swell and repeated hits. */
interface Recipe {
  toneHz: number;
  /** 0 all noise, 1 all tone. */
  toneMix: number;
  /** One-pole low-pass coefficient of the noise (small = darker). */
  noiseColour: number;
  /** Swell (amplitude modulation) rate in Hz and depth 0 to 1. */
  swellHz: number;
  swellDepth: number;
  /** Hits per second (0 = continuous) and how long each rings, in seconds. */
  hitsPerSecond: number;
  hitDecay: number;
  /** How the whole sound fades when it does not loop: `burst` dies away, `steady` holds. */
  shape: 'burst' | 'steady';
}

/** The sound of an empty prompt: soft, steady, slightly dark noise with a low tone. */
const NEUTRAL: Recipe = {
  toneHz: 220,
  toneMix: 0.2,
  noiseColour: 0.2,
  swellHz: 0.5,
  swellDepth: 0.2,
  hitsPerSecond: 0,
  hitDecay: 0.1,
  shape: 'steady',
};

const KINDS: { words: RegExp; recipe: Partial<Recipe> }[] = [
  {
    words: /\b(rain\w*|water|stream|river|waves?|ocean|sea|wind\w*|storm|static|hiss\w*)\b/,
    recipe: { toneMix: 0.02, noiseColour: 0.35, swellDepth: 0.5, hitsPerSecond: 0, shape: 'steady' },
  },
  {
    words: /\b(explosion|explode|boom|thunder|crash\w*|blast|impact)\b/,
    recipe: { toneHz: 55, toneMix: 0.3, noiseColour: 0.08, swellDepth: 0, hitsPerSecond: 0, shape: 'burst' },
  },
  {
    words: /\b(beep\w*|alarm|notification|ding|bell\w*|chime\w*|ring\w*|ping)\b/,
    recipe: { toneMix: 0.95, noiseColour: 0.5, swellDepth: 0.1, hitsPerSecond: 2, hitDecay: 0.25, shape: 'steady' },
  },
  {
    words: /\b(footsteps?|knock\w*|click\w*|tap\w*|clap\w*|drip\w*)\b/,
    recipe: { toneMix: 0.4, noiseColour: 0.6, swellDepth: 0, hitsPerSecond: 2.5, hitDecay: 0.04, shape: 'steady' },
  },
  {
    words: /\b(tone|sine|whistle|flute|pad)\b/,
    recipe: { toneMix: 1, swellHz: 1, swellDepth: 0.2, hitsPerSecond: 0, shape: 'steady' },
  },
  {
    words: /\b(engine|motor|hum\w*|drone|buzz\w*|machine\w*|fan)\b/,
    recipe: {
      toneHz: 90,
      toneMix: 0.7,
      noiseColour: 0.15,
      swellHz: 3,
      swellDepth: 0.3,
      hitsPerSecond: 0,
      shape: 'steady',
    },
  },
];

/** The recipe the prompt's words and hash suggest. */
function promptRecipe(prompt: string): Recipe {
  const random = seedFromBytes(Buffer.from(prompt, 'utf8'), 'sound-effect');
  const hashed: Recipe = {
    toneHz: 120 + Math.floor(random.next() * 1500),
    toneMix: random.next(),
    noiseColour: 0.05 + random.next() * 0.6,
    swellHz: 0.25 + random.next() * 6,
    swellDepth: random.next() * 0.7,
    hitsPerSecond: random.next() < 0.4 ? 1 + Math.floor(random.next() * 6) : 0,
    hitDecay: 0.03 + random.next() * 0.3,
    shape: random.next() < 0.3 ? 'burst' : 'steady',
  };
  const kind = KINDS.find(({ words }) => words.test(prompt.toLowerCase()));
  return { ...hashed, ...kind?.recipe };
}

/** The neutral recipe moved towards the prompt's by `influence` (0 to 1). */
export function recipeFor(prompt: string, influence: number): Recipe {
  const wanted = promptRecipe(prompt);
  const mix = (a: number, b: number) => a + (b - a) * influence;
  return {
    toneHz: NEUTRAL.toneHz * (wanted.toneHz / NEUTRAL.toneHz) ** influence,
    toneMix: mix(NEUTRAL.toneMix, wanted.toneMix),
    noiseColour: mix(NEUTRAL.noiseColour, wanted.noiseColour),
    swellHz: mix(NEUTRAL.swellHz, wanted.swellHz),
    swellDepth: mix(NEUTRAL.swellDepth, wanted.swellDepth),
    hitsPerSecond: influence >= 0.25 ? wanted.hitsPerSecond : 0,
    hitDecay: mix(NEUTRAL.hitDecay, wanted.hitDecay),
    shape: influence >= 0.25 ? wanted.shape : NEUTRAL.shape,
  };
}

function noise(n: number, seed: number): number {
  let h = Math.imul(n ^ seed, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 0x8000_0000 - 1;
}

/** `frames` samples of the recipe, as floats, with no overall envelope. */
function renderRaw(recipe: Recipe, frames: number, seed: number, periodSeconds: number | null): Float32Array {
  // Looping: every periodic part completes a whole number of cycles over the period, so the
  // continuation past the end is the same as the start.
  const whole = (hz: number) =>
    periodSeconds === null || hz === 0 ? hz : Math.max(1, Math.round(hz * periodSeconds)) / periodSeconds;
  const swellHz = whole(recipe.swellHz);
  const hitsPerSecond = whole(recipe.hitsPerSecond);
  const toneHz = whole(recipe.toneHz);
  const out = new Float32Array(frames);
  let filtered = 0;
  // Warm the filter up so the first sample is no different from any other.
  for (let n = -RATE / 10; n < 0; n++) filtered += recipe.noiseColour * (noise(n, seed) - filtered);
  for (let n = 0; n < frames; n++) {
    const t = n / RATE;
    filtered += recipe.noiseColour * (noise(n, seed) - filtered);
    const tone = Math.sin(2 * Math.PI * toneHz * t) + 0.3 * Math.sin(4 * Math.PI * toneHz * t);
    const swell = 1 - recipe.swellDepth * (0.5 - 0.5 * Math.cos(2 * Math.PI * swellHz * t));
    const hit = hitsPerSecond > 0 ? Math.exp(-((t * hitsPerSecond) % 1) / (recipe.hitDecay * hitsPerSecond)) : 1;
    // Darker noise is quieter after the filter: lift it back.
    const noisy = (filtered / Math.sqrt(recipe.noiseColour / (2 - recipe.noiseColour))) * 0.5;
    out[n] = (recipe.toneMix * tone * 0.6 + (1 - recipe.toneMix) * noisy) * swell * hit;
  }
  return out;
}

/** Equal-power crossfade of the tail past the end into the start: the last sample runs on into the first. */
function closeLoop(raw: Float32Array, frames: number): Float32Array {
  const fade = raw.length - frames;
  const out = raw.slice(0, frames);
  for (let i = 0; i < fade; i++) {
    const angle = (Math.PI / 2) * (i / fade);
    out[i] = raw[i]! * Math.sin(angle) + raw[frames + i]! * Math.cos(angle);
  }
  return out;
}

function generate(request: SoundEffectRequest): Promise<Buffer> {
  request.signal.throwIfAborted();
  const failure = scriptedFailure(readSimScript(request.metadata ?? null));
  if (failure) return Promise.reject(failure);
  const frames = Math.round(request.durationSeconds * RATE);
  const recipe = recipeFor(request.prompt, request.promptInfluence);
  const seed = seedFromBytes(Buffer.from(request.prompt, 'utf8'), 'sound-effect-noise').next() * 0x7fff_ffff;
  let samples: Float32Array;
  if (request.loop) {
    const fade = Math.min(Math.round(RATE * 0.1), Math.floor(frames / 4));
    samples = closeLoop(renderRaw(recipe, frames + fade, seed | 0, request.durationSeconds), frames);
  } else {
    samples = renderRaw(recipe, frames, seed | 0, null);
    const release = Math.min(frames / 5, RATE * 0.3);
    for (let n = 0; n < frames; n++) {
      const body = recipe.shape === 'burst' ? Math.exp(-(3 * n) / frames) : 1;
      samples[n]! *= body * Math.min(1, n / (RATE * 0.005), (frames - 1 - n) / release);
    }
  }
  let peak = 0;
  for (const value of samples) peak = Math.max(peak, Math.abs(value));
  const gain = peak > 0 ? 0.7 / peak : 0; // about -3 dBFS at the loudest
  const out = Buffer.alloc(frames * 2);
  for (let n = 0; n < frames; n++) out.writeInt16LE(Math.round(samples[n]! * gain * 32_767), n * 2);
  return Promise.resolve(out);
}

/**
 * The embedded sound-effect engine: a recipe of tone, coloured noise, swell and repeated hits,
 * chosen by words of the prompt (rain, explosion, bell, footsteps, engine …) and a hash of it, and
 * pulled towards a neutral texture as `prompt_influence` falls. A loop makes every periodic part
 * whole over the duration and crossfades the continuation into the start, so the end runs on into
 * the beginning without a click; otherwise the sound fades in and out. 48 kHz mono, deterministic.
 */
export function createSimSoundEffectBackend(): SoundEffectBackend {
  return { name: 'sim', shape: { sampleRate: RATE, channels: 1 }, generate };
}
