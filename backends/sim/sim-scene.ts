import type { SimRandom } from './sim-media-seed.js';

const SUBJECTS = [
  'a bicycle',
  'a cat',
  'two people',
  'a red car',
  'a bookshelf',
  'a laptop',
  'a tree',
  'a coffee cup',
  'a street sign',
  'a dog',
  'a bridge',
  'a chart',
];
const PLACES = [
  'beside a window',
  'on a desk',
  'in a park',
  'near a door',
  'under a lamp',
  'on a street',
  'by the sea',
  'in a kitchen',
  'in an office',
  'on a table',
];
const LIGHT = ['soft light', 'bright daylight', 'evening light', 'dim light', 'harsh shadows', 'even studio light'];
const PALETTE = [
  'cool blue tones',
  'warm orange tones',
  'muted greys',
  'vivid greens',
  'black and white',
  'pastel colours',
];

/** A short sim scene: what is where, under which light ("a cat on a desk, soft light"). */
export function simScene(random: SimRandom): string {
  return `${random.pick(SUBJECTS)} ${random.pick(PLACES)}, ${random.pick(LIGHT)}`;
}

/** A sim colour palette ("cool blue tones"). */
export function simPalette(random: SimRandom): string {
  return random.pick(PALETTE);
}
