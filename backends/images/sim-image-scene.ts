import { seedFromBytes, type SimRandom } from '../sim/sim-media-seed.js';

/** What the sim draws: a scene from the prompt and seed, and text lines on a legible band. */
export interface SimSceneOptions {
  prompt: string;
  seed: number;
  width: number;
  height: number;
  /** No background fill (transparent images, and overlays for edits). */
  transparent: boolean;
  /** Shape opacity (edits draw the scene over the reference at less than 1). */
  opacity: number;
  /** Lines drawn black on a white band, large enough for OCR to read; empty for none. */
  lines: string[];
}

/** Hues (degrees) of colour words a prompt may use; the scene leans towards them. */
const COLOUR_WORDS: Record<string, number> = {
  red: 0,
  orange: 30,
  yellow: 55,
  gold: 45,
  green: 120,
  teal: 175,
  cyan: 185,
  blue: 220,
  navy: 230,
  purple: 275,
  violet: 270,
  pink: 330,
  magenta: 300,
  brown: 25,
  sunset: 20,
  ocean: 200,
  forest: 130,
  sky: 205,
};

/** The hue a prompt leans towards, or a seeded one. */
function baseHue(prompt: string, random: SimRandom): number {
  for (const word of prompt.toLowerCase().match(/[a-z]+/g) ?? []) {
    const hue = COLOUR_WORDS[word];
    if (hue !== undefined) return hue;
  }
  return Math.floor(random.next() * 360);
}

const hsl = (h: number, s: number, l: number) =>
  `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s)}%,${Math.round(l)}%)`;

/** XML text content: the five characters SVG would read as markup escaped. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

function shapes(random: SimRandom, { width, height, opacity }: SimSceneOptions, hue: number): string {
  const count = 3 + Math.floor(random.next() * 5);
  const min = Math.min(width, height);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const fill = hsl(hue + (random.next() - 0.5) * 140, 45 + random.next() * 40, 35 + random.next() * 35);
    const x = Math.round(random.next() * width);
    const y = Math.round(random.next() * height);
    const size = Math.round(min * (0.1 + random.next() * 0.3));
    const alpha = (opacity * (0.6 + random.next() * 0.4)).toFixed(2);
    const kind = random.pick(['circle', 'rect', 'ellipse', 'triangle'] as const);
    if (kind === 'circle') out.push(`<circle cx="${x}" cy="${y}" r="${size}" fill="${fill}" fill-opacity="${alpha}"/>`);
    else if (kind === 'rect')
      out.push(
        `<rect x="${x - size}" y="${y - size / 2}" width="${size * 2}" height="${size}" rx="${Math.round(size / 8)}" fill="${fill}" fill-opacity="${alpha}"/>`,
      );
    else if (kind === 'ellipse')
      out.push(
        `<ellipse cx="${x}" cy="${y}" rx="${size}" ry="${Math.round(size * 0.6)}" fill="${fill}" fill-opacity="${alpha}"/>`,
      );
    else
      out.push(
        `<polygon points="${x},${y - size} ${x - size},${y + size} ${x + size},${y + size}" fill="${fill}" fill-opacity="${alpha}"/>`,
      );
  }
  return out.join('');
}

/**
 * Text on an opaque white band across the middle, black, in a large plain font sized so the
 * longest line fits: what lets OCR read back exactly what was drawn.
 */
function textBand(lines: readonly string[], width: number, height: number): string {
  if (lines.length === 0) return '';
  const longest = Math.max(...lines.map((line) => line.length));
  const size = Math.max(12, Math.floor(Math.min(height / (lines.length * 1.6 + 1), (width * 0.86) / (longest * 0.64))));
  const lineHeight = Math.round(size * 1.35);
  const bandHeight = lineHeight * lines.length + Math.round(size * 0.7);
  const top = Math.round((height - bandHeight) / 2);
  const text = lines
    .map(
      (line, i) =>
        `<text x="${width / 2}" y="${top + Math.round(size * 0.35) + lineHeight * i + size}" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="${size}" text-anchor="middle" fill="#000">${escapeXml(line)}</text>`,
    )
    .join('');
  return `<rect x="0" y="${top}" width="${width}" height="${bandHeight}" fill="#fff"/>${text}`;
}

/** The sim's picture as SVG: the same prompt, seed and size always give the same picture. */
export function simSceneSvg(options: SimSceneOptions): string {
  const { width, height } = options;
  const random = seedFromBytes(Buffer.from(options.prompt, 'utf8'), `image:${options.seed}`);
  const hue = baseHue(options.prompt, random);
  const background = options.transparent
    ? ''
    : `<defs><linearGradient id="bg" x1="0" y1="0" x2="${random.next() > 0.5 ? 1 : 0}" y2="1"><stop offset="0" stop-color="${hsl(hue, 55, 78)}"/><stop offset="1" stop-color="${hsl(hue + 40, 50, 42)}"/></linearGradient></defs><rect width="${width}" height="${height}" fill="url(#bg)"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${background}${shapes(random, options, hue)}${textBand(options.lines, width, height)}</svg>`;
}

/** Only the text band, on a transparent canvas (laid over an edit). */
export function textOverlaySvg(lines: readonly string[], width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${textBand(lines, width, height)}</svg>`;
}

/** Text a prompt quotes ("…"), which the sim draws as a real model would; at most 4 short lines. */
export function quotedText(prompt: string): string[] {
  const quoted = [...prompt.matchAll(/"([^"\n]{1,80})"/g)].map((m) => m[1]!.trim()).filter(Boolean);
  return quoted.slice(0, 4);
}
