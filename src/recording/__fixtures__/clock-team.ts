/**
 * A two-agent system whose instructions hold the time, so the proxy names its agents by a
 * fingerprint that changes every run: a researcher finds a unit price, an analyst multiplies it.
 * Uses the official `openai` client against OPENAI_BASE_URL; writes the analyst's answer to --out.
 *
 *   node --import tsx src/recording/__fixtures__/clock-team.ts --out answer.txt
 */
import OpenAI from 'openai';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const client = new OpenAI({
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: 'sk-test',
  maxRetries: 0,
});
const run = process.env.FAULTLINE_RUN ? { 'x-faultline-run': process.env.FAULTLINE_RUN } : {};
const now = () => `Current time: ${new Date().toISOString()}.`;
// CLOCK_TEAM_NAMED=1: each call names its agent in a header, so the names stay from run to run.
const named = process.env.CLOCK_TEAM_NAMED === '1';

const ask = async (agent: string, system: string, user: string) => {
  const headers = { ...run, ...(named ? { 'x-faultline-agent': agent } : {}) };
  const reply = await client.chat.completions.create(
    {
      model: 'scripted',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    },
    { headers },
  );
  return reply.choices[0]?.message.content ?? '';
};

const price = await ask('researcher', `${now()} Find the unit price of the item asked about.`, 'Widgets?');
const answer = await ask(
  'analyst',
  `${now()} Multiply the unit price you are given by the quantity.`,
  `Price: ${price}. Quantity: 3.`,
);
writeFileSync(values.out!, `${answer}\n`);
