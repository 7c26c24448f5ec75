/**
 * Writes docs/CLI.md from the commands' definitions (`npm run docs:cli`); with `--check` it only
 * says whether the file is current and exits 1 when it is not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCliReference } from '../src/cli/cli-reference.js';
import { buildProgram } from '../src/cli/program.js';

const target = fileURLToPath(new URL('../docs/CLI.md', import.meta.url));
const text = renderCliReference(buildProgram(() => {}));
if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    console.error('docs/CLI.md is stale: run `npm run docs:cli`');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
