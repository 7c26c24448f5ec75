/**
 * The examples offered on the page's empty screen: the shipped Who&When traces and one small run
 * per kind of source, read from the package's examples/ folder.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Example } from './api-types.js';

/** The package's examples/ folder (beside src/ and dist/). */
const EXAMPLES_ROOT = fileURLToPath(new URL('../../examples/', import.meta.url));

/** Every example, by a short name that is also its URL segment. */
export const EXAMPLES: readonly (Example & { file: string })[] = [
  {
    name: 'who-and-when-hc-6',
    file: 'who-and-when-hc-6.json',
    title: 'Magentic-One, Who&When Hand-Crafted #6',
    description: 'An orchestrator and web, file and code agents; labelled.',
  },
  {
    name: 'who-and-when-ag-58',
    file: 'who-and-when-ag-58.json',
    title: 'CaptainAgent group chat, Who&When Algorithm-Generated #58',
    description: 'Domain experts and a code executor; labelled.',
  },
  {
    name: 'otel-genai',
    file: 'formats/otlp-genai-semconv.json',
    title: 'OpenTelemetry GenAI spans',
    description: 'invoke_agent, chat and execute_tool spans in OTLP/JSON.',
  },
  {
    name: 'crewai',
    file: 'formats/crewai-events.jsonl',
    title: 'CrewAI events',
    description: 'A crew’s agent, LLM and tool events as JSON Lines.',
  },
  {
    name: 'langfuse',
    file: 'formats/langfuse-trace-export.json',
    title: 'Langfuse trace export',
    description: 'A trace with its observations, as the Langfuse API returns it.',
  },
  {
    name: 'openai-agents',
    file: 'formats/openai-agents-traces-ingest.json',
    title: 'OpenAI Agents SDK traces',
    description: 'Agent, generation, function and handoff spans.',
  },
  {
    name: 'ag2-logs-db',
    file: 'formats/ag2-logs.db',
    title: 'AG2 logs.db',
    description: 'An AG2 runtime_logging SQLite database.',
  },
];

/** The example's file name and bytes, or undefined for an unknown name. */
export async function readExample(
  name: string,
): Promise<{ file: string; bytes: Uint8Array } | undefined> {
  const example = EXAMPLES.find((item) => item.name === name);
  if (!example) return undefined;
  return { file: example.file, bytes: await readFile(EXAMPLES_ROOT + example.file) };
}
