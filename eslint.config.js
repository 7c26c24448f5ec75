// One lint setup for the repository. The import rules keep the layers pointing one way
// (docs/ARCHITECTURE.md): trace <- llm <- attribution <- eval, store <- cli, server; web/ reaches
// the server only over HTTP and shares nothing but its types (src/server/api-types.ts).
// Static imports and dynamic import() calls are both checked.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Each layer and the folders below src/ that it must not import. */
const LAYERS = [
  { files: ['src/trace/**/*.ts'], above: ['llm', 'attribution', 'eval', 'store', 'cli', 'server'] },
  { files: ['src/llm/**/*.ts'], above: ['attribution', 'eval', 'store', 'cli', 'server'] },
  { files: ['src/attribution/**/*.ts'], above: ['eval', 'store', 'cli', 'server'] },
  { files: ['src/eval/**/*.ts', 'src/store/**/*.ts'], above: ['cli', 'server'] },
  {
    files: ['src/errors.ts', 'src/config.ts'],
    above: ['trace', 'llm', 'attribution', 'eval', 'store', 'cli', 'server'],
  },
];

function layerRules(above, message) {
  const folders = above.join('|');
  return {
    'no-restricted-imports': [
      'error',
      { patterns: [{ group: above.map((folder) => `**/${folder}/**`), message }] },
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
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: { '@typescript-eslint/no-unnecessary-type-assertion': 'error' },
  },
  ...LAYERS.map(({ files, above }) => ({
    files,
    rules: layerRules(
      above,
      `a lower layer must not import ${above.join(', ')} (see docs/ARCHITECTURE.md)`,
    ),
  })),
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
