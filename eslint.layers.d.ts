import type { Linter } from 'eslint';

/** The layer rules (see eslint.layers.js). */
export declare const layerRules: Linter.Config[];
