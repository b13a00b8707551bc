import type sharpModule from 'sharp';
import { lazyModule } from '../../runtime/lazy-module.js';

/** sharp with libvips (about 30 MB resident), loaded by the first image request rather than at start. */
export const loadSharp: () => Promise<typeof sharpModule> = lazyModule(() => import('sharp').then((m) => m.default));
