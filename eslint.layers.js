// The layer rules of docs/architecture.md, as lint: a wrong-way import fails `npm run lint`.
// protocols → nothing of ours; runtime → protocols; backends → protocols and runtime's config,
// store port, clock, cancel signal, worker helper and lazy module loader; actors → runtime, protocols, backend interfaces;
// http → everything, but no disk and no LMDB outside the composition roots (http/app.ts, http/main.ts, http/wiring/).

const UWS = '@trufflesuite/uws-js-unofficial';
const layer = (message, ...group) => ({ group, message });

/** @type {import('eslint').Linter.Config[]} */
export const layerRules = [
  {
    files: ['protocols/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [UWS, 'lmdb', 'xstate', 'msgpackr'].map((name) => ({
            name,
            message: 'protocols/ holds wire formats only.',
          })),
          patterns: [
            layer(
              'protocols/ imports nothing of ours but protocols/.',
              '**/runtime/**',
              '**/actors/**',
              '**/backends/**',
              '**/http/**',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['runtime/**/*.ts'],
    ignores: ['runtime/store/lmdb-store.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: UWS, message: 'uWS stays in http/.' },
            { name: 'lmdb', message: 'Only runtime/store/lmdb-store.ts touches LMDB.' },
          ],
          patterns: [
            layer(
              'runtime/ knows no domain: it imports protocols/ only.',
              '**/actors/**',
              '**/backends/**',
              '**/http/**',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['backends/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: UWS, message: 'uWS stays in http/.' },
            { name: 'lmdb', message: 'Backends reach storage through the Store port.' },
          ],
          patterns: [
            layer('backends/ sit below the features: no actors/ or http/.', '**/actors/**', '**/http/**'),
            layer(
              'backends/ may use runtime/ config, clock, cancel signal, store port, worker helper and lazy module loader only.',
              '**/runtime/**',
              '!**/runtime/config.js',
              '!**/runtime/clock.js',
              '!**/runtime/cancel-signal.js',
              '!**/runtime/store/store.js',
              '!**/runtime/ts-worker.js',
              '!**/runtime/lazy-module.js',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['actors/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: UWS, message: 'uWS stays in http/.' },
            { name: 'lmdb', message: 'Features reach storage through the Store port.' },
          ],
          patterns: [
            layer('actors/ never reach into http/: the edge calls the feature, not the other way.', '**/http/**'),
            layer(
              'actors/ use backend interfaces; implementations are chosen in the composition root.',
              '**/backends/*/**',
              '**/backends/create-*',
              '!**/backends/text-extraction/text-extractor.js',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['http/**/*.ts'],
    ignores: ['http/app.ts', 'http/main.ts', 'http/wiring/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'fs', 'fs/promises', 'lmdb'].map((name) => ({
            name,
            message: 'http/ is transport: disk and store stay behind feature ports.',
          })),
          patterns: [
            layer(
              'http/ reaches storage through features; only the composition root opens a store.',
              '**/runtime/store/lmdb-store.js',
              '**/runtime/store/memory-store.js',
            ),
            layer(
              'Backend implementations are chosen in the composition root (http/wiring/).',
              '**/backends/*/**',
              '**/backends/create-*',
            ),
            layer(
              'http/ calls feature facades; effect implementations are wired in the composition root.',
              '**/actors/**/*-effects.js',
              '**/actors/sessions/session-runtime.js',
              '**/actors/uploads/upload-runtime.js',
              '**/actors/chat/run-pass.js',
              '**/actors/chat/completion-run.js',
            ),
          ],
        },
      ],
    },
  },
];
