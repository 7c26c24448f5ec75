/**
 * The pricing team on LlamaIndex.TS (`@llamaindex/workflow`'s `multiAgent` with
 * `@llamaindex/openai`): a CoordinatorAgent hands the question to a ResearchAgent
 * (`lookup_price`), who reports the unit price and hands off to an AnalystAgent (`calculate`),
 * whose total is the answer. Handoffs are LlamaIndex's own `handOff` tool, which takes the agent's
 * name as an argument (`{"toAgent": "ResearchAgent", "reason": …}`) and answers "Agent
 * ResearchAgent is now handling the request…"; the worker prompts do not state a name. The price
 * tool returns an object, which LlamaIndex.TS hands to the model with its JSON quotes stripped.
 * Plain LlamaIndex code: the model is whatever OPENAI_BASE_URL points at.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8600/v1 node --import tsx \
 *     examples/pricing-team/llamaindex.ts --api chat --stream --out answer.json
 *
 * `--api responses` uses the Responses API; `--stream` runs the workflow as a stream of events
 * (LlamaIndex.TS streams every model call either way).
 */
import { parseArgs } from 'node:util';
import { openai, openaiResponses } from '@llamaindex/openai';
import { agent, agentStreamEvent, multiAgent, stopAgentEvent } from '@llamaindex/workflow';
import { tool } from '@llamaindex/core/tools';
import { z } from 'zod';
import { calculate, lookupPrice, runHeaders, TASK, writeAnswer } from './tools.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'chat' },
    stream: { type: 'boolean', default: false },
    out: { type: 'string', default: 'answer.json' },
  },
});

const settings = {
  model: process.env.PRICING_TEAM_MODEL ?? 'gpt-4o-mini',
  temperature: 0,
  maxRetries: 0,
  apiKey: process.env.OPENAI_API_KEY ?? 'unused-by-the-scripted-model',
  baseURL: process.env.OPENAI_BASE_URL,
  additionalSessionOptions: { defaultHeaders: runHeaders() },
};
const llm = values.api === 'responses' ? openaiResponses(settings) : openai(settings);

const analyst = agent({
  name: 'AnalystAgent',
  description: 'Works out totals from unit prices.',
  systemPrompt:
    'Work out the total with calculate (3 × the reported unit price + the 4.00 USD fee) and answer "TOTAL: <amount> USD".',
  llm,
  tools: [
    tool({
      name: 'calculate',
      description: 'Evaluates an arithmetic expression such as "3 * 12.5 + 4".',
      parameters: z.object({ expression: z.string() }),
      execute: ({ expression }) => calculate(expression),
    }),
  ],
});

const researcher = agent({
  name: 'ResearchAgent',
  description: 'Looks up unit prices.',
  systemPrompt:
    'Look up the unit price with lookup_price, report it as "unit price: <price> USD" and hand off for the total.',
  llm,
  tools: [
    tool({
      name: 'lookup_price',
      description: "Returns an item's unit price in USD.",
      parameters: z.object({ item: z.string() }),
      execute: ({ item }) => ({ item, unit_price: Number(lookupPrice(item)) }),
    }),
  ],
  canHandoffTo: [analyst],
});

const coordinator = agent({
  name: 'CoordinatorAgent',
  description: 'Takes pricing questions.',
  systemPrompt:
    'You are the CoordinatorAgent of a pricing team. Hand pricing questions to the agent that looks up prices.',
  llm,
  tools: [],
  canHandoffTo: [researcher],
});

const team = multiAgent({ agents: [coordinator, researcher, analyst], rootAgent: coordinator });

let answer = '';
if (values.stream) {
  for await (const event of team.runStream(TASK)) {
    if (agentStreamEvent.include(event)) continue; // the deltas, as a UI would show them
    if (stopAgentEvent.include(event)) answer = String(event.data.result ?? '');
  }
} else answer = String((await team.run(TASK)).data.result ?? '');

writeAnswer(values.out, answer);
console.log(answer);
