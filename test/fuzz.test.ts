/**
 * The fuzz test of issue 50, bounded for `npm test`: FUZZ_RUNS hostile files (default 40) made
 * from the format fixtures, each checked against the promise (test/fuzz/promise.ts). `npm run
 * fuzz` runs 10,000. A failure prints fast-check's seed and path: FUZZ_SEED and FUZZ_PATH replay it.
 */
import './fuzz/no-color.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadTraces } from '../src/trace/load.js';
import { hostileCases, hostileFile, loadFixtures } from './fuzz/mutations.js';
import { checkPromise, readAs } from './fuzz/promise.js';
import { ROOT } from './paths.js';

const runs = Number(process.env.FUZZ_RUNS ?? 40);

describe('hostile files (fuzz)', () => {
  it(
    `keeps the promise on ${runs} mutated format fixtures`,
    { timeout: runs * 60_000 },
    async () => {
      const fixtures = loadFixtures();
      const good = join(ROOT, 'examples/who-and-when-ag-58.json');
      const neighbour = {
        name: 'who-and-when-ag-58.json',
        bytes: new Uint8Array(await readFile(good)),
        expected: '',
      };
      neighbour.expected = readAs(await loadTraces(good));
      await fc.assert(
        fc.asyncProperty(hostileCases(fixtures), (test) =>
          checkPromise(hostileFile(fixtures, test), neighbour),
        ),
        {
          numRuns: runs,
          ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
          ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
        },
      );
    },
  );
});
