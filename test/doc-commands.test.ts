/**
 * Every shell block of README.md and docs/GUIDE.md runs as documented: `npx faultline` is this
 * checkout's command, and each command must exit as the page says (0, or the code a trailing
 * `# exits N` gives). README.md's blocks are one bash script each, and one preceded by
 * `<!-- not run: why -->` is skipped, saying why; the guide is one session, every block in order
 * in one shell, with nothing skipped but a block whose reason names the test that runs exactly it. They run in a temporary copy of the checkout (`../shared`
 * beside it), so what they write lands there, never in the checkout.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { npxShim, script, shellBlocks } from './doc-script.js';
import { HAS_SHARED_DATA, ROOT } from './paths.js';

/**
 * Runs a script in `cwd` with `home` as FAULTLINE_HOME and the test `npx` in `bin` first on the
 * PATH. Whatever the script left running is stopped when it exits (its process group), and the
 * whole group is stopped after `timeoutMs`, with the output so far and exit code 124.
 */
function runBash(
  text: string,
  cwd: string,
  home: string,
  bin: string,
  timeoutMs = 300_000,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', text], {
      cwd,
      env: {
        ...process.env,
        PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
        FAULTLINE_HOME: home,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stopGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group has already ended
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, timeoutMs);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', stopGroup);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(
        timedOut
          ? { code: 124, output: `${output}\n(stopped after ${timeoutMs} ms)` }
          : { code: code ?? 1, output },
      );
    });
  });
}

describe(
  'the commands in README.md and docs/GUIDE.md',
  { skip: !HAS_SHARED_DATA && 'needs ../shared' },
  () => {
    let folder = '';
    let checkout = '';
    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'faultline-docs-'));
      checkout = join(folder, 'checkout');
      // A copy, not links: a script started by a linked path is not its own entry point to node
      // (import.meta.url names the real file). The installed packages and the build are linked.
      await cp(ROOT, checkout, {
        recursive: true,
        filter: (source) => !/\/(?:\.git|node_modules|dist|test-results|bench\/out)$/.test(source),
      });
      for (const entry of ['node_modules', 'dist']) {
        if (existsSync(join(ROOT, entry))) await symlink(join(ROOT, entry), join(checkout, entry));
      }
      await symlink(join(ROOT, '../shared'), join(folder, 'shared'));
      await mkdir(join(folder, 'bin'));
      await writeFile(join(folder, 'bin/npx'), npxShim(join(ROOT, 'src/cli/index.ts')));
      await chmod(join(folder, 'bin/npx'), 0o755);
    });
    after(async () => {
      await rm(folder, { recursive: true, force: true });
    });

    it("README.md's example verdict is what the set-up command prints", async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const shown = /The first prints[^\n]*\n\n```\n([\s\S]*?)\n```/.exec(readme)?.[1];
      assert.ok(shown, 'README.md shows the verdict after "The first prints"');
      const { code, output } = await runBash(
        script(['npx faultline attribute examples/who-and-when-ag-58.json']),
        checkout,
        join(folder, 'home'),
        join(folder, 'bin'),
      );
      assert.equal(code, 0, output);
      assert.equal(shown, output.trimEnd());
    });

    // README.md's blocks stand alone; docs/GUIDE.md's are one session, run in order in one shell.
    for (const block of shellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'))) {
      const name = `README.md:${block.line}`;
      it(name, { skip: block.skipped }, async () => {
        const { code, output } = await runBash(
          script(block.commands),
          checkout,
          join(folder, 'home'),
          join(folder, 'bin'),
        );
        assert.equal(code, 0, `${name}:\n${output}`);
      });
    }

    it('docs/GUIDE.md, every block in order', { timeout: 600_000 }, async () => {
      const blocks = shellBlocks(readFileSync(join(ROOT, 'docs/GUIDE.md'), 'utf8'));
      assert.deepEqual(
        blocks.filter(
          (block) =>
            block.skipped && !/test\/[\w-]+\.test\.ts runs exactly this/.test(block.skipped),
        ),
        [],
        'every command of the guide runs, here or in the test its block names',
      );
      const { code, output } = await runBash(
        script(blocks.filter((block) => !block.skipped).flatMap((block) => block.commands)),
        checkout,
        join(folder, 'guide-home'),
        join(folder, 'bin'),
        540_000,
      );
      assert.equal(code, 0, `docs/GUIDE.md:\n${output}`);
    });
  },
);
