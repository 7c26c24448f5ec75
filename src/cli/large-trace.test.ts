/**
 * A large trace through the command: `attribute` on a 60 MB trace whose one step holds nearly all of
 * it (a tool that printed a whole file: its readings as one line of JSON, then as lines of text)
 * stays within twice the file's size and 200 MB of resident memory (a small trace takes 110 MB).
 * Reading the file held its bytes beside its text while the text was parsed, and quoting the step
 * held every line, word and figure of it: the same trace peaked at 517 MB. bench/large-step.ts
 * measures a 200 MB one.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../test/paths.js';

const run = promisify(execFile);
const MEGABYTES = 60;

/** Writes the trace; resolves with its size in bytes. */
async function writeLargeStepTrace(file: string): Promise<number> {
  const stream = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += text.length;
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write(
    '{"question": "What is the mean reading of sensor 17?", "history": [{"role": "user", "name": "human", "content": "What is the mean reading of sensor 17?"}, {"role": "assistant", "name": "DataAnalyst", "content": "As JSON: [',
  );
  const target = MEGABYTES * 1024 * 1024;
  const value = (row: number) => ((row * 7919) % 10007) / 100;
  let chunk = '';
  for (let row = 0; bytes + chunk.length < target; row += 1) {
    chunk +=
      bytes < target / 4
        ? `{\\"row\\":${row},\\"sensor\\":${row % 97},\\"value\\":${value(row)}},`
        : `\\nrow ${row}: sensor ${row % 97} read ${value(row)}`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(
    `${chunk}\\nThe mean is 51.3."}, {"role": "assistant", "name": "Verifier", "content": "Checked: 51.3."}]}\n`,
  );
  stream.end();
  await once(stream, 'finish');
  return bytes;
}

describe('a large trace', () => {
  let folder = '';
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-large-'));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it(`attributes a ${MEGABYTES} MB one-step trace within twice its size and 200 MB`, async () => {
    const file = join(folder, 'large-step.json');
    const bytes = await writeLargeStepTrace(file);
    // The command in a child process of its own, which reports its peak resident memory.
    const script = [
      "process.on('exit', () => process.stderr.write(`peak ${process.resourceUsage().maxRSS}\\n`));",
      `process.argv = [process.argv[0], 'faultline', 'attribute', ${JSON.stringify(file)}, '--json'];`,
      `await import(${JSON.stringify(join(ROOT, 'src/cli/index.ts'))});`,
    ].join('\n');
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      {
        cwd: ROOT,
        env: { ...process.env, FAULTLINE_HOME: join(folder, 'home') },
        timeout: 120_000,
      },
    );
    assert.equal((JSON.parse(stdout) as { agent: string }).agent, 'DataAnalyst');
    const peakMb = Number(/peak (\d+)/.exec(stderr)![1]) / 1024;
    const limitMb = (2 * bytes) / 2 ** 20 + 200;
    assert.ok(peakMb < limitMb, `peak ${peakMb.toFixed(0)} MB, over ${limitMb.toFixed(0)} MB`);
  });
});
