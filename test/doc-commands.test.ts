/**
 * Every shell block of README.md and docs/GUIDE.md runs as documented: each block is one bash
 * script, `npx faultline` is this checkout's command, and each command must exit as the page says
 * (0, or the code a trailing `# exits N` gives). A block preceded by `<!-- not run: why -->` is
 * skipped, and must say why. The blocks run in a temporary folder that mirrors the checkout (its
 * files linked, `../shared` beside it), so what they write lands there, never in the checkout.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HAS_SHARED_DATA, ROOT } from './paths.js';

/** A fenced `sh` block and whether it is to run. */
interface ShellBlock {
  line: number;
  commands: string[];
  skipped?: string;
}

/** The `sh` blocks of a Markdown page, each command with its continuation lines joined. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```sh') continue;
    const fence = index + 1;
    let previous = index - 1;
    while (previous >= 0 && lines[previous]!.trim() === '') previous--;
    const skipped = /^<!-- not run: (.+?) -->$/.exec(lines[previous] ?? '')?.[1];
    const commands: string[] = [];
    let pending = '';
    for (index++; index < lines.length && lines[index] !== '```'; index++) {
      const text = lines[index]!;
      pending += pending ? `\n${text}` : text;
      if (text.endsWith('\\')) continue;
      if (pending.trim() && !pending.trim().startsWith('#')) commands.push(pending);
      pending = '';
    }
    blocks.push({ line: fence, commands, ...(skipped ? { skipped } : {}) });
  }
  return blocks;
}

/** The exit code a command documents with a trailing `# exits N`, else 0. */
function documentedExit(command: string): number {
  return Number(/#\s*exits (\d+)\s*$/.exec(command)?.[1] ?? 0);
}

/** A bash script running the block's commands, each checked against its documented exit code. */
function script(block: ShellBlock): string {
  const checks = block.commands.map((command, index) => {
    const expected = documentedExit(command);
    return [
      `{ ${command}\n}`,
      `code=$?`,
      `if [ "$code" -ne ${expected} ]; then echo "command ${index + 1} exited $code, the page says ${expected}" >&2; exit 90; fi`,
    ].join('\n');
  });
  return [
    'set -o pipefail',
    `npx() { if [ "$1" = faultline ]; then shift; node --import tsx "${join(ROOT, 'src/cli/index.ts')}" "$@"; else command npx "$@"; fi; }`,
    ...checks,
  ].join('\n');
}

function runBash(
  text: string,
  cwd: string,
  home: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', text], {
      cwd,
      env: { ...process.env, FAULTLINE_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const PAGES = ['README.md', 'docs/GUIDE.md'].filter((page) => existsSync(join(ROOT, page)));

describe(
  'the commands in README.md and docs/GUIDE.md',
  { skip: !HAS_SHARED_DATA && 'needs ../shared' },
  () => {
    let folder = '';
    let checkout = '';
    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'faultline-docs-'));
      checkout = join(folder, 'checkout');
      await mkdir(checkout);
      for (const entry of await readdir(ROOT)) {
        if (entry === '.git') continue;
        await symlink(join(ROOT, entry), join(checkout, entry));
      }
      await symlink(join(ROOT, '../shared'), join(folder, 'shared'));
    });
    after(async () => {
      await rm(folder, { recursive: true, force: true });
    });

    it("README.md's example verdict is what the set-up command prints", async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const shown = /The first prints[^\n]*\n\n```\n([\s\S]*?)\n```/.exec(readme)?.[1];
      assert.ok(shown, 'README.md shows the verdict after "The first prints"');
      const { code, output } = await runBash(
        script({ line: 0, commands: ['npx faultline attribute examples/who-and-when-ag-58.json'] }),
        checkout,
        join(folder, 'home'),
      );
      assert.equal(code, 0, output);
      assert.equal(shown, output.trimEnd());
    });

    for (const page of PAGES) {
      for (const block of shellBlocks(readFileSync(join(ROOT, page), 'utf8'))) {
        const name = `${page}:${block.line}`;
        it(name, { skip: block.skipped }, async () => {
          const { code, output } = await runBash(script(block), checkout, join(folder, 'home'));
          assert.equal(code, 0, `${name}:\n${output}`);
        });
      }
    }
  },
);
