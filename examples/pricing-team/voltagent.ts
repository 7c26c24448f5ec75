/**
 * The pricing team on VoltAgent (`@voltagent/core`) with its own OpenTelemetry observability: a
 * `Coordinator` supervisor delegates to its sub-agents (`subAgents`, VoltAgent's `delegate_task`
 * tool): a `Researcher` looks up the unit price (`lookup_price`) and reports it, an `Analyst`
 * works out the total (`calculate`), and the coordinator answers with it. VoltAgent's spans go,
 * through the span processor it is given (`VoltAgentObservability({ spanProcessors })`), to
 * OTEL_EXPORTER_OTLP_ENDPOINT (faultline launch --otlp-port 4318: `http://127.0.0.1:4318`); the
 * model is whatever OPENAI_BASE_URL points at, through the AI SDK's OpenAI provider.
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OPENAI_BASE_URL=http://127.0.0.1:8700/v1 \
 *     node --import tsx examples/pricing-team/voltagent.ts --api chat --out answer.json
 *
 * The run is one trace under a root span of the app's own (handed to the coordinator as its
 * `parentSpan`: VoltAgent links an agent to an ambient span of another library, it does not nest
 * it); `--self-check` marks the run's outcome on it (`faultline.outcome` = failed or passed).
 * VoltAgent keeps a timer open, so the app ends its process itself once the spans are flushed.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Agent, createTool, VoltAgentObservability } from '@voltagent/core';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { openAiModel } from './openai-model.js';
import { inCheckedRootSpan, ROOT_SCOPE } from './telemetry.js';
import { calculate, lookupPrice, TASK, writeAnswer } from './tools.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'chat' },
    stream: { type: 'boolean', default: false },
    out: { type: 'string', default: 'answer.json' },
    'self-check': { type: 'boolean', default: false },
  },
});

const observability = new VoltAgentObservability({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'pricing-team',
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  // VoltAgent passes on its own spans only; the app's root span is let through too.
  spanFilters: { instrumentationScopeNames: ['@voltagent/core', ROOT_SCOPE] },
});
const model = openAiModel(values.api);
const shared = { model, observability, temperature: 0, maxRetries: 0, maxSteps: 5 };

const researcher = new Agent({
  ...shared,
  name: 'Researcher',
  purpose: 'Looks up unit prices.',
  instructions:
    'You are the researcher of a pricing team. Look up the unit price with lookup_price and report it as "unit price: <price> USD". Do not do any math.',
  tools: [
    createTool({
      name: 'lookup_price',
      description: "Returns an item's unit price in USD.",
      parameters: z.object({ item: z.string() }),
      execute: async ({ item }) => lookupPrice(item),
    }),
  ],
});
const analyst = new Agent({
  ...shared,
  name: 'Analyst',
  purpose: 'Works out totals.',
  instructions:
    'You are a pricing analyst. Work out the total with calculate (3 × the reported unit price + the 4.00 USD fee) and answer "TOTAL: <amount> USD".',
  tools: [
    createTool({
      name: 'calculate',
      description: 'Evaluates an arithmetic expression such as "3 * 12.5 + 4".',
      parameters: z.object({ expression: z.string() }),
      execute: async ({ expression }) => calculate(expression),
    }),
  ],
});
const coordinator = new Agent({
  ...shared,
  name: 'Coordinator',
  instructions:
    'You are the coordinator of a pricing team. Ask the researcher for the unit price and the analyst for the total, then answer with the total as "TOTAL: <amount> USD".',
  subAgents: [researcher, analyst],
});

const answer = await inCheckedRootSpan(async (root) => {
  if (!values.stream) return (await coordinator.generateText(TASK, { parentSpan: root })).text;
  const streamed = await coordinator.streamText(TASK, { parentSpan: root });
  for await (const part of streamed.textStream) void part; // the text, as a UI would show it
  return await streamed.text;
}, values['self-check']);

await observability.forceFlush();
await observability.shutdown();
writeAnswer(values.out, answer);
console.log(answer);
// VoltAgent keeps a timer open (its model list, fetched at start): the run is over.
process.exit(0);
