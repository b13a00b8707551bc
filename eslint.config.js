// Type-checked rules: in a streaming server a dropped promise is a lost write.
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint.layers.js';

export default tseslint.config(
  // http/inspector/ holds the inspector page's browser ES modules, shipped as they are (no build step).
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'bench/results/',
      'eslint.config.js',
      'eslint.layers.js',
      'http/inspector/',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  // The worker entry (15 lines of plain JavaScript) is linted without types: one TypeScript
  // program for the whole lint (a second one for it added ~20 s of the 65 s budget).
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  ...layerRules,
);
