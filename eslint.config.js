// One lint setup for the repository. The import rules keep the layers pointing one way:
// trace <- attribution / eval / store <- cli / server (see docs/ARCHITECTURE.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const upper = ['**/cli/**', '**/server/**'];

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
    files: ['src/trace/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/attribution/**', '**/eval/**', '**/store/**', ...upper],
              message: 'src/trace is the bottom layer: it must not import upper layers.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/attribution/**/*.ts', 'src/eval/**/*.ts', 'src/store/**/*.ts', 'src/errors.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: upper, message: 'Lower layers must not import cli/ or server/.' }] },
      ],
    },
  },
);
