/**
 * Peak memory of `faultline attribute` on a trace whose one large step holds nearly all of its
 * 200 MB (a tool that printed a whole data dump): the trace is written to a temporary folder and
 * attributed by the CLI in a child process, which reports its own peak resident memory, so the
 * figure is the command's alone. `node --import tsx bench/large-step.ts [megabytes] [runs]`
 * prints the runs as JSON; `measureLargeStep()` returns them to a caller (bench/run.ts).
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);
/** The child's last stderr line starts with this, followed by its figures as JSON. */
const MARK = 'large-step-bench ';

/** One attribution of the large trace. */
export interface LargeStepRun {
  seconds: number;
  maxRssMb: number;
}

/**
 * Writes a Who&When-shaped trace of about `megabytes` MB: a task, one agent step whose content is a
 * data dump (readings as one line of JSON, a quarter of it, then as lines of text: a tool that
 * printed a whole file) and two short closing steps. Streams, so the writer stays small.
 * Resolves with the file's size in bytes.
 */
export async function generateLargeStepTrace(file: string, megabytes: number): Promise<number> {
  const stream = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write(
    '{"is_correct": false, "question": "What is the mean reading of sensor 17?", "ground_truth": "3.42", "mistake_agent": "DataAnalyst", "mistake_step": "1", "history": [\n' +
      '{"role": "user", "name": "human", "content": "What is the mean reading of sensor 17? Load readings.csv and report the mean."},\n' +
      '{"role": "assistant", "name": "DataAnalyst", "content": "Loaded readings.csv:\\n',
  );
  const target = megabytes * 1024 * 1024;
  const statuses = ['ok', 'ok', 'warning: drift', 'ok', 'error: sensor timeout'];
  const reading = (row: number) => ({
    sensor: row % 97,
    value: ((row * 7919) % 10007) / 100,
    at: `${10 + (row % 14)}:${String(row % 60).padStart(2, '0')}`,
    status: statuses[row % statuses.length]!,
  });
  // The readings as one line of JSON (escaped as a JSON string), then as lines of text.
  let chunk = 'As JSON: [';
  for (let row = 0; bytes + chunk.length < target / 4; row += 1) {
    chunk += `${row === 0 ? '' : ','}${JSON.stringify({ row, ...reading(row) }).replaceAll('"', '\\"')}`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  chunk += ']\\n';
  for (let row = 0; bytes + chunk.length < target; row += 1) {
    const { sensor, value, at, status } = reading(row);
    chunk += `row ${row}: sensor ${sensor} read ${value} at ${at}, status ${status}\\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await write(
    'The mean reading of sensor 17 is 51.3."},\n' +
      '{"role": "assistant", "name": "Verifier", "content": "I checked the mean: 51.3 matches the rows above."},\n' +
      '{"role": "assistant", "name": "DataAnalyst", "content": "FINAL ANSWER: 51.3"}\n]}\n',
  );
  stream.end();
  await once(stream, 'finish');
  return bytes;
}

/**
 * Attributes a `megabytes` MB one-large-step trace `runs` times, each in a fresh child process
 * running the CLI (`attribute FILE --json`); the temporary folder is removed afterwards.
 */
export async function measureLargeStep(
  megabytes = 200,
  runs = 1,
): Promise<{ bytes: number; runs: LargeStepRun[] }> {
  const folder = await mkdtemp(join(tmpdir(), 'faultline-large-step-'));
  try {
    const file = join(folder, 'large-step.json');
    const bytes = await generateLargeStepTrace(file, megabytes);
    const measured: LargeStepRun[] = [];
    for (let round = 0; round < runs; round += 1) {
      // The child's figures follow the attribution on stdout; a failed attribution throws here.
      const output = execFileSync(
        process.execPath,
        ['--import', 'tsx', THIS_FILE, '--child', file],
        {
          cwd: ROOT,
          encoding: 'utf8',
          maxBuffer: 1 << 24,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, FAULTLINE_HOME: folder },
        },
      );
      measured.push(
        JSON.parse(output.slice(output.lastIndexOf(MARK) + MARK.length)) as LargeStepRun,
      );
    }
    return { bytes, runs: measured };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The child: runs `faultline attribute FILE --json` in this process, as the command would, and
 * writes its time and peak resident memory after the attribution's line on stdout.
 */
async function child(file: string): Promise<void> {
  const started = performance.now();
  process.argv = [process.argv[0]!, 'faultline', 'attribute', file, '--json'];
  process.on('exit', () => {
    const run: LargeStepRun = {
      seconds: (performance.now() - started) / 1000,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    };
    process.stdout.write(`${MARK}${JSON.stringify(run)}\n`);
  });
  await import('../src/cli/index.js');
}

if (process.argv[1] === THIS_FILE) {
  if (process.argv[2] === '--child') await child(process.argv[3]!);
  else {
    const megabytes = Number(process.argv[2] ?? 200);
    const runs = Number(process.argv[3] ?? 1);
    const result = await measureLargeStep(megabytes, runs);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}
