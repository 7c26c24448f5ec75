/**
 * A small agent team on the AI SDK: a planner breaks the task into steps, a coder turns the plan
 * into JavaScript and runs it with the run_code tool, and a reviewer approves or rejects the
 * result. The team's answer is what the code computed, if the reviewer approved it.
 *
 *   node --import tsx examples/agent-team/team.ts --task arith-1 --out answer.json
 *
 * It talks to whatever OPENAI_BASE_URL points at (OpenAI itself by default, with OPENAI_API_KEY;
 * the scripted model of scripted-model.ts; or `faultline proxy` in front of either), at
 * temperature 0 with a seed so that a replay makes the same calls. Each call names its agent in
 * the x-faultline-agent header, and FAULTLINE_RUN (if set) names the run.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runInNewContext } from 'node:vm';
import { taskById } from './tasks.js';

const { values } = parseArgs({
  options: { task: { type: 'string', default: 'arith-1' }, out: { type: 'string' } },
});
const task = taskById(values.task);
if (values.out) rmSync(values.out, { force: true });

const baseURL = process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
// A local scripted model needs no key; a real provider does.
const apiKey =
  process.env.OPENAI_API_KEY ?? (/127\.0\.0\.1|localhost/.test(baseURL) ? 'no-key' : undefined);
if (!apiKey)
  throw new Error('OPENAI_API_KEY is not set (or point OPENAI_BASE_URL at the scripted model)');
const model = createOpenAI({ baseURL, apiKey }).chat(process.env.AGENT_TEAM_MODEL ?? 'gpt-4o-mini');

const headers = (agent: string) => ({
  'x-faultline-agent': agent,
  ...(process.env.FAULTLINE_RUN ? { 'x-faultline-run': process.env.FAULTLINE_RUN } : {}),
});
const settings = { model, temperature: 0, seed: 7, maxRetries: 1 } as const;

const planner = await generateText({
  ...settings,
  headers: headers('planner'),
  system:
    'You are the planner of a small team that solves arithmetic and coding tasks. Write a short numbered plan for the coder. For an arithmetic task, give the expression to evaluate in backticks. For a coding task, say which numbers to loop over and what to add up or multiply. Do not compute the result yourself.',
  prompt: `Task: ${task.prompt}`,
});
const plan = planner.text.trim();

let code = '';
let result: string | undefined;
const coder = await generateText({
  ...settings,
  headers: headers('coder'),
  system:
    'You are the coder of a small team. Write JavaScript that follows the plan exactly (its last expression is the result) and run it with the run_code tool. Then reply with RESULT: <the value run_code returned>.',
  prompt: `Task: ${task.prompt}\n\nPlan:\n${plan}`,
  tools: {
    run_code: tool({
      description: 'Runs JavaScript and returns the value of its last expression.',
      inputSchema: jsonSchema<{ code: string }>({
        type: 'object',
        properties: { code: { type: 'string', description: 'the JavaScript to run' } },
        required: ['code'],
      }),
      execute: async ({ code: source }) => {
        code = source;
        try {
          result = String(runInNewContext(source, {}, { timeout: 1000 }));
        } catch (error) {
          result = undefined;
          return `Error: ${error instanceof Error ? error.message : String(error)}`;
        }
        return result;
      },
    }),
  },
  stopWhen: stepCountIs(3),
});

const reviewer = await generateText({
  ...settings,
  headers: headers('reviewer'),
  system:
    "You are the reviewer of a small team. Check that the coder's code follows the plan and answers the task. Reply APPROVED or REJECTED with one sentence why, then a last line FINAL ANSWER: <value>.",
  prompt: `Task: ${task.prompt}\n\nPlan:\n${plan}\n\nCode:\n${code}\n\nResult: ${result ?? '(the code failed)'}\n\nCoder's report: ${coder.text.trim()}`,
});
const approved = /^\s*APPROVED/i.test(reviewer.text);

const outcome = {
  task: task.id,
  answer: approved ? (result ?? null) : null,
  approved,
  plan,
  code,
  result: result ?? null,
};
const text = `${JSON.stringify(outcome, null, 2)}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
