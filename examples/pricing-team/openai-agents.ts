/**
 * The pricing team on the OpenAI Agents SDK for JS: a Coordinator hands the question to a
 * Researcher (`lookup_price`), who reports the unit price and hands off to an Analyst
 * (`calculate`), whose total is the answer. Plain SDK code: the model is whatever
 * OPENAI_BASE_URL points at (faultline's proxy, in front of a real provider or the scripted model).
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8600/v1 node --import tsx \
 *     examples/pricing-team/openai-agents.ts --api responses --stream --out answer.json
 *
 * `--api chat` uses Chat Completions instead of the Responses API; `--stream` streams the run;
 * `--trace` sends a W3C `traceparent` with every call, as an OpenTelemetry-instrumented client
 * does (trace-context.ts), one trace per app run.
 * `--otel` exports OpenInference spans (the openai-agents instrumentation) to
 * OTEL_EXPORTER_OTLP_ENDPOINT, the run in a root span of the app's own; with `--self-check` that
 * span says how the run ended (`faultline.outcome`).
 */
import { parseArgs } from 'node:util';
import * as agents from '@openai/agents';
import {
  Agent,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import { RECOMMENDED_PROMPT_PREFIX } from '@openai/agents-core/extensions';
import OpenAI from 'openai';
import { z } from 'zod';
import { tracedFetch } from './trace-context.js';
import { calculate, lookupPrice, runHeaders, TASK, writeAnswer } from './tools.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'responses' },
    stream: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    out: { type: 'string', default: 'answer.json' },
    otel: { type: 'boolean', default: false },
    'self-check': { type: 'boolean', default: false },
  },
});

// `--otel`: the SDK's traces as OpenInference spans (@arizeai/openinference-instrumentation-
// openai-agents, which replaces the SDK's own exporter), over OTLP (telemetry.ts). Otherwise
// nothing leaves for OpenAI's trace exporter. Every model call goes to OPENAI_BASE_URL.
// Loaded only then, so a run without it starts as fast as before.
const otel = values.otel ? await import('./telemetry.js') : undefined;
const telemetry = otel?.startTelemetry();
if (telemetry) {
  const { OpenAIAgentsInstrumentation } =
    await import('@arizeai/openinference-instrumentation-openai-agents');
  new OpenAIAgentsInstrumentation({ tracerProvider: telemetry }).manuallyInstrument(agents);
} else setTracingDisabled(true);
setDefaultOpenAIClient(
  new OpenAI({
    baseURL: process.env.OPENAI_BASE_URL,
    apiKey: process.env.OPENAI_API_KEY ?? 'unused-by-the-scripted-model',
    maxRetries: 0,
    // faultline runs (`inject`, or a name of your choosing) say which run a call belongs to.
    defaultHeaders: runHeaders(),
    ...(values.trace ? { fetch: tracedFetch() } : {}),
  }),
);
setOpenAIAPI(values.api === 'chat' ? 'chat_completions' : 'responses');

const model = process.env.PRICING_TEAM_MODEL ?? 'gpt-4o-mini';
const modelSettings = { temperature: 0 };

const analyst = new Agent({
  name: 'Analyst',
  model,
  modelSettings,
  instructions: `${RECOMMENDED_PROMPT_PREFIX}\nYou are the Analyst of a pricing team. Work out the total with calculate (3 × the reported unit price + the 4.00 USD fee) and answer "TOTAL: <amount> USD".`,
  tools: [
    tool({
      name: 'calculate',
      description: 'Evaluates an arithmetic expression such as "3 * 12.5 + 4".',
      parameters: z.object({ expression: z.string() }),
      execute: ({ expression }) => calculate(expression),
    }),
  ],
});

const researcher = new Agent({
  name: 'Researcher',
  model,
  modelSettings,
  instructions: `${RECOMMENDED_PROMPT_PREFIX}\nYou are the Researcher of a pricing team. Look up the unit price with lookup_price, report it as "unit price: <price> USD" and hand off to the Analyst.`,
  tools: [
    tool({
      name: 'lookup_price',
      description: "Returns an item's unit price in USD.",
      parameters: z.object({ item: z.string() }),
      execute: ({ item }) => lookupPrice(item),
    }),
  ],
  handoffs: [analyst],
});

const coordinator = new Agent({
  name: 'Coordinator',
  model,
  modelSettings,
  instructions: `${RECOMMENDED_PROMPT_PREFIX}\nYou are the Coordinator of a pricing team. Hand pricing questions to the Researcher.`,
  handoffs: [researcher],
});

/** One run of the team: its final output. */
async function runTeam(): Promise<string> {
  if (!values.stream) return String((await run(coordinator, TASK)).finalOutput ?? '');
  const streamed = await run(coordinator, TASK, { stream: true });
  for await (const event of streamed) void event; // the events, as a UI would show them
  await streamed.completed;
  return String(streamed.finalOutput ?? '');
}

const answer = otel
  ? await otel.inCheckedRootSpan(runTeam, values['self-check'] === true)
  : await runTeam();
await telemetry?.shutdown();

writeAnswer(values.out, answer);
console.log(answer);
