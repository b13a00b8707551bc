/** Texts whose JSON encoding has edge cases (escapes, control characters, line separators, surrogates, non-ASCII). */
export const AWKWARD_TEXTS = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\r\n',
  '\u0000 nul',
  '\u2028\u2029',
  '😀',
  '\ud800 lone',
  '中文',
];
