/**
 * The pricing team on LangGraph.js with `@langchain/langgraph-supervisor`: a supervisor delegates
 * to a researcher (`lookup_price`) and then an analyst (`calculate`), both ReAct agents, and
 * reports the analyst's total. Plain LangChain code: the model is whatever OPENAI_BASE_URL points
 * at (faultline's proxy, in front of a real provider or the scripted model).
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8600/v1 node --import tsx \
 *     examples/pricing-team/langgraph.ts --api chat --stream --out answer.json
 *
 * `--api responses` uses the Responses API instead of Chat Completions. `--stream` streams the
 * graph's messages (`graph.stream(…, {streamMode: 'messages'})`): ChatOpenAI's own `streaming`
 * flag with `invoke()` fetches tiktoken data to count tokens, which hangs with no network.
 * `--otel` exports OpenInference spans (the LangChain instrumentation) to
 * OTEL_EXPORTER_OTLP_ENDPOINT, the run in a root span of the app's own; with `--self-check` that
 * span says how the run ended (`faultline.outcome`).
 */
import { parseArgs } from 'node:util';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createSupervisor } from '@langchain/langgraph-supervisor';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { calculate, lookupPrice, runHeaders, TASK, writeAnswer } from './tools.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'chat' },
    stream: { type: 'boolean', default: false },
    out: { type: 'string', default: 'answer.json' },
    otel: { type: 'boolean', default: false },
    'self-check': { type: 'boolean', default: false },
  },
});

// `--otel`: OpenInference spans from @arizeai/openinference-instrumentation-langchain, exported
// over OTLP (telemetry.ts), the run inside a root span of the app's own.
// Loaded only then, so a run without it starts as fast as before.
const otel = values.otel ? await import('./telemetry.js') : undefined;
const telemetry = otel?.startTelemetry();
if (telemetry) {
  const { LangChainInstrumentation } =
    await import('@arizeai/openinference-instrumentation-langchain');
  new LangChainInstrumentation({ tracerProvider: telemetry }).manuallyInstrument(
    await import('@langchain/core/callbacks/manager'),
  );
}

const llm = new ChatOpenAI({
  model: process.env.PRICING_TEAM_MODEL ?? 'gpt-4o-mini',
  temperature: 0,
  maxRetries: 0,
  useResponsesApi: values.api === 'responses',
  apiKey: process.env.OPENAI_API_KEY ?? 'unused-by-the-scripted-model',
  configuration: { baseURL: process.env.OPENAI_BASE_URL, defaultHeaders: runHeaders() },
});

const researcher = createReactAgent({
  llm,
  name: 'researcher',
  prompt:
    'You are a world class researcher with access to a price list. Look up the unit price with lookup_price and report it as "unit price: <price> USD". Do not do any math.',
  tools: [
    tool((input: { item: string }) => lookupPrice(input.item), {
      name: 'lookup_price',
      description: "Returns an item's unit price in USD.",
      schema: z.object({ item: z.string() }),
    }),
  ],
});

const analyst = createReactAgent({
  llm,
  name: 'analyst',
  prompt:
    'You are a pricing analyst. Work out the total with calculate (3 × the reported unit price + the 4.00 USD fee) and answer "TOTAL: <amount> USD".',
  tools: [
    tool((input: { expression: string }) => calculate(input.expression), {
      name: 'calculate',
      description: 'Evaluates an arithmetic expression such as "3 * 12.5 + 4".',
      schema: z.object({ expression: z.string() }),
    }),
  ],
});

const team = createSupervisor({
  agents: [researcher, analyst],
  llm,
  prompt:
    'You are a team supervisor managing a researcher and an analyst. Ask the researcher for the unit price, then the analyst for the total, and answer with the total as "TOTAL: <amount> USD".',
}).compile();

/** A message's text: its string, or its text parts (the Responses API's). */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: unknown }) => String(part.text ?? '')).join('')
      : '';

const input = { messages: [{ role: 'user', content: TASK }] };
/** One run of the team: the supervisor's final answer. */
async function runTeam(): Promise<string> {
  if (!values.stream) return textOf((await team.invoke(input)).messages.at(-1)?.content);
  // The supervisor's final answer, as the stream delivers it in chunks.
  let streamed = '';
  for await (const [chunk, metadata] of await team.stream(input, { streamMode: 'messages' }))
    if ((metadata as { langgraph_node?: string }).langgraph_node === 'supervisor')
      streamed += textOf(chunk.content);
  return streamed;
}

const answer = otel
  ? await otel.inCheckedRootSpan(runTeam, values['self-check'] === true)
  : await runTeam();
await telemetry?.shutdown();

writeAnswer(values.out, answer);
console.log(answer);
