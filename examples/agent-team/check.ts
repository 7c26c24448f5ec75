/**
 * The example team's check: exit 0 when the team's answer file holds the task's right answer,
 * 1 when it does not (or the team wrote no answer).
 *
 *   node --import tsx examples/agent-team/check.ts --task arith-1 --answer answer.json
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { taskById } from './tasks.js';

const { values } = parseArgs({
  options: {
    task: { type: 'string', default: 'arith-1' },
    answer: { type: 'string', default: 'answer.json' },
  },
});
const task = taskById(values.task);
const file = values.answer;
if (!existsSync(file)) {
  process.stderr.write(`check: ${file} is missing: the team wrote no answer\n`);
  process.exit(1);
}
const { answer } = JSON.parse(readFileSync(file, 'utf8')) as { answer: string | null };
const right = answer !== null && Number(answer) === Number(task.answer);
process.stderr.write(
  `check: ${task.id}: the team answered ${answer ?? 'nothing'}; ${right ? 'right' : `wrong (expected ${task.answer})`}\n`,
);
process.exit(right ? 0 : 1);
