/** docs/CLI.md is what the commands print: regenerated in-process, and checked against `--help` run as a user runs it. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import pLimit from 'p-limit';
import { ROOT } from '../../test/paths.js';
import { commandPaths, renderCliReference } from './cli-reference.js';
import { buildProgram } from './program.js';

const run = promisify(execFile);
const reference = readFileSync(join(ROOT, 'docs/CLI.md'), 'utf8');

/** The help text docs/CLI.md holds under `## faultline <path>`. */
function documentedHelp(path: readonly string[]): string | undefined {
  const heading = `## ${['faultline', ...path].join(' ')}\n\n\`\`\`text\n`;
  const start = reference.indexOf(heading);
  if (start < 0) return undefined;
  const body = start + heading.length;
  return reference.slice(body, reference.indexOf('\n```', body));
}

describe('docs/CLI.md', () => {
  it('is what the command definitions generate (run `npm run docs:cli` after changing a flag)', () => {
    assert.equal(
      reference,
      renderCliReference(buildProgram(() => {})),
      'docs/CLI.md is stale: run `npm run docs:cli`',
    );
  });

  it("matches every command's --help, run as a user runs it", async () => {
    const paths = [[], ...commandPaths(buildProgram(() => {})).map(({ path }) => path)];
    const limit = pLimit(4);
    await Promise.all(
      paths.map((path) =>
        limit(async () => {
          const { stdout } = await run(
            process.execPath,
            ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), ...path, '--help'],
            { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
          );
          assert.equal(
            documentedHelp(path),
            stdout.trimEnd(),
            `faultline ${path.join(' ')} --help`,
          );
        }),
      ),
    );
  });
});
