/**
 * Checks a pricing team's answer: exits 0 when the answer file's total is 41.50 USD, 1 when not.
 *
 *   node --import tsx examples/pricing-team/check.ts --answer answer.json
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXPECTED_TOTAL } from './tools.js';

const { values } = parseArgs({ options: { answer: { type: 'string', default: 'answer.json' } } });
// The apps write the file whole (tools.ts, writeAnswer); an empty or cut one is a failed run.
const text = readFileSync(values.answer, 'utf8');
let answer = '';
try {
  answer = String((JSON.parse(text) as { answer?: unknown }).answer ?? '');
} catch {
  console.log(`unreadable answer file ${values.answer} (${text.length} characters)`);
  process.exit(1);
}
const total = /TOTAL: ([\d.]+) USD/.exec(answer)?.[1];
if (total === EXPECTED_TOTAL) console.log(`right: ${total} USD`);
else {
  console.log(`wrong: ${total ?? 'no total'} (expected ${EXPECTED_TOTAL} USD)`);
  process.exitCode = 1;
}
