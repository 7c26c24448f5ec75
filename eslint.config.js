// One lint setup for the repository. The import rules keep the layers pointing one way
// (docs/ARCHITECTURE.md): trace <- llm <- attribution <- eval, store <- recording <- cli, server;
// web/ reaches the server only over HTTP and shares nothing but its types (src/server/api-types.ts).
// Static imports and dynamic import() calls are both checked.
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

/** Each layer and the folders below src/ that it must not import. */
const LAYERS = [
  {
    files: ['src/trace/**/*.ts'],
    above: ['llm', 'attribution', 'eval', 'store', 'recording', 'cli', 'server'],
  },
  {
    files: ['src/llm/**/*.ts'],
    above: ['attribution', 'eval', 'store', 'recording', 'cli', 'server'],
  },
  { files: ['src/attribution/**/*.ts'], above: ['eval', 'store', 'recording', 'cli', 'server'] },
  { files: ['src/eval/**/*.ts', 'src/store/**/*.ts'], above: ['recording', 'cli', 'server'] },
  // Recording (the proxy, replay) sits beside attribution's users; it shares the server's host and
  // cross-site checks (src/server/auth.ts) and nothing else of the server.
  {
    files: ['src/recording/**/*.ts'],
    above: ['eval', 'cli', 'server'],
    allow: ['**/server/auth.js'],
  },
  // Live ingest (OTLP spans into runs) builds on trace and store; the server wires it.
  { files: ['src/live/**/*.ts'], above: ['eval', 'cli', 'server'] },
  {
    files: ['src/errors.ts', 'src/config.ts'],
    above: ['trace', 'llm', 'attribution', 'eval', 'store', 'recording', 'cli', 'server'],
  },
];

/**
 * Files that are data tables, exempt from the size rules below: their length is the list's, and
 * splitting a list by line count would only scatter it. phrases.ts is the offline features' phrase
 * lists (one array per cue, one phrase a line).
 */
const DATA_TABLES = ['src/attribution/offline/features/phrases.ts'];

function layerRules(above, message, allow = []) {
  const folders = above.join('|');
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: [
              ...above.map((folder) => `**/${folder}/**`),
              ...allow.map((path) => `!${path}`),
            ],
            message,
          },
        ],
      },
    ],
    'no-restricted-syntax': [
      'error',
      {
        selector: `ImportExpression > Literal[value=/\\/(${folders})\\//]`,
        message,
      },
    ],
  };
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '**/__fixtures__/**',
      'coverage/**',
      'scratch/**',
      'bench/out/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // With noUncheckedIndexedAccess on, a `!` is kept only where the compiler needs it.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: { '@typescript-eslint/no-unnecessary-type-assertion': 'error' },
  },
  // Patterns run on untrusted text (trace files, uploads, spans): none may backtrack more than
  // linearly, whether inside one match or by moving its start along the text (issue 50). A pattern
  // the rule cannot clear is rewritten, or anchored so that it starts in one place.
  {
    files: ['src/**/*.ts', 'web/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false }],
      'regexp/no-misleading-capturing-group': 'error',
    },
  },
  ...LAYERS.map(({ files, above, allow }) => ({
    files,
    rules: layerRules(
      above,
      `a lower layer must not import ${above.join(', ')} (see docs/ARCHITECTURE.md)`,
      allow,
    ),
  })),
  // Small modules (docs/ARCHITECTURE.md, issue 32): a file past 300 lines or a function past 100,
  // counted as `wc -l` counts them (blank lines and comments included), is split along its
  // responsibilities. Tests and fixtures are exempt, and so are the data tables listed above.
  {
    files: ['src/**/*.ts', 'web/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__fixtures__/**', ...DATA_TABLES],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['web/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/(?!server/api-types\\.js$)',
              message:
                'the page talks to the server over HTTP; it may share only src/server/api-types.ts',
            },
          ],
        },
      ],
    },
  },
);
