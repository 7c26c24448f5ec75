/**
 * The pricing team on the Vercel AI SDK 6 with its OpenTelemetry telemetry
 * (`experimental_telemetry: { isEnabled: true, functionId }`): a coordinator asks, a researcher
 * looks up the unit price (`lookup_price`) and reports it, an analyst works out the total
 * (`calculate`), and the coordinator answers with it. Each agent is one `generateText` (or, with
 * `--stream`, `streamText`) call whose `functionId` names it; the run is wrapped in a root span of
 * the app's own, so its spans form one trace. Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (faultline
 * launch --otlp-port 4318: `http://127.0.0.1:4318`), the model is whatever OPENAI_BASE_URL points at.
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OPENAI_BASE_URL=http://127.0.0.1:8700/v1 \
 *     node --import tsx examples/pricing-team/ai-sdk.ts --api chat --out answer.json
 *
 * `--self-check` marks the run's outcome on the root span (`faultline.outcome` = failed or
 * passed), as an app that checks its own answer would.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { openAiModel } from './openai-model.js';
import { inRootSpan, startTelemetry } from './telemetry.js';
import { calculate, EXPECTED_TOTAL, lookupPrice, TASK } from './tools.js';

const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'chat' },
    stream: { type: 'boolean', default: false },
    out: { type: 'string', default: 'answer.json' },
    'self-check': { type: 'boolean', default: false },
  },
});

const provider = startTelemetry();
const model = openAiModel(values.api);

/** One agent's turn: its model calls (and tool runs) until it answers in text. */
async function agent(
  functionId: string,
  system: string,
  messages: ModelMessage[],
  tools: Parameters<typeof generateText>[0]['tools'] = {},
): Promise<string> {
  const settings = {
    model,
    system,
    messages,
    tools,
    temperature: 0,
    maxRetries: 0,
    stopWhen: stepCountIs(5),
    experimental_telemetry: { isEnabled: true, functionId },
  };
  if (!values.stream) return (await generateText(settings)).text;
  const streamed = streamText(settings);
  for await (const part of streamed.textStream) void part; // the text, as a UI would show it
  return streamed.text;
}

const COORDINATOR =
  'You are the coordinator of a pricing team. Ask the researcher for the unit price and the analyst for the total, then answer with the total as "TOTAL: <amount> USD".';
const RESEARCHER =
  'You are the researcher of a pricing team. Look up the unit price with lookup_price and report it as "unit price: <price> USD". Do not do any math.';
const ANALYST =
  'You are a pricing analyst. Work out the total with calculate (3 × the reported unit price + the 4.00 USD fee) and answer "TOTAL: <amount> USD".';

const question: ModelMessage = { role: 'user', content: TASK };
const said = (text: string): ModelMessage => ({ role: 'assistant', content: text });

const answer = await inRootSpan('pricing-team', async (root) => {
  const asked = await agent('coordinator', COORDINATOR, [question]);
  const report = await agent('researcher', RESEARCHER, [question], {
    lookup_price: tool({
      description: "Returns an item's unit price in USD.",
      inputSchema: z.object({ item: z.string() }),
      execute: async ({ item }) => lookupPrice(item),
    }),
  });
  const total = await agent('analyst', ANALYST, [question, said(report)], {
    calculate: tool({
      description: 'Evaluates an arithmetic expression such as "3 * 12.5 + 4".',
      inputSchema: z.object({ expression: z.string() }),
      execute: async ({ expression }) => calculate(expression),
    }),
  });
  const final = await agent('coordinator', COORDINATOR, [
    question,
    said(asked),
    said(report),
    said(total),
  ]);
  if (values['self-check'])
    root.setAttribute(
      'faultline.outcome',
      final.includes(`TOTAL: ${EXPECTED_TOTAL} USD`) ? 'passed' : 'failed',
    );
  return final;
});

await provider.shutdown();
writeFileSync(values.out, JSON.stringify({ answer }) + '\n');
console.log(answer);
