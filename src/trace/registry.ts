/**
 * The registry of input formats. Order is detection priority: specific shapes before the generic
 * message list. `--format NAME` looks a format up here; an unknown name lists the valid ones.
 */
import { UserError } from '../errors.js';
import type { TraceFormat } from './format.js';
import { aiSdkFormat } from './formats/ai-sdk.js';
import { aegisFormat } from './formats/aegis.js';
import { ag2SqliteFormat } from './formats/ag2-sqlite.js';
import { autogenFormat } from './formats/autogen.js';
import { canonicalFormat } from './formats/canonical.js';
import { collectorRowsFormat } from './formats/collector-rows.js';
import { crewAiFormat } from './formats/crewai.js';
import { langfuseFormat } from './formats/langfuse.js';
import { langGraphFormat } from './formats/langgraph.js';
import { magenticOneFormat } from './formats/magentic-one.js';
import { messagesFormat } from './formats/messages.js';
import { openAiAgentsFormat } from './formats/openai-agents.js';
import { openInferenceFormat } from './formats/openinference.js';
import { otelFormat } from './formats/otel.js';
import { smolagentsFormat } from './formats/smolagents.js';
import { whoAndWhenFormat } from './formats/who-and-when.js';
import { voltAgentFormat } from './formats/voltagent.js';
import { whoAndWhenProFormat } from './formats/who-and-when-pro.js';
import type { RawInput } from './read-input.js';

const formats = new Map<string, TraceFormat>(
  [
    canonicalFormat,
    whoAndWhenFormat,
    aegisFormat,
    whoAndWhenProFormat,
    openAiAgentsFormat,
    // VoltAgent's own keys first: its runs may carry the AI SDK's telemetry spans too.
    voltAgentFormat,
    aiSdkFormat,
    openInferenceFormat,
    otelFormat,
    collectorRowsFormat,
    langfuseFormat,
    langGraphFormat,
    smolagentsFormat,
    autogenFormat,
    crewAiFormat,
    magenticOneFormat,
    messagesFormat,
    ag2SqliteFormat,
  ].map((format) => [format.name, format]),
);

/** Every registered format, in detection order. */
export function listFormats(): TraceFormat[] {
  return [...formats.values()];
}

/** The format named `name`, or a UserError listing the valid names. */
export function getFormat(name: string): TraceFormat {
  const format = formats.get(name);
  if (!format)
    throw new UserError(
      `unknown format "${name}"; choose one of: ${[...formats.keys()].join(', ')}`,
    );
  return format;
}

/** The first format whose shape matches, if any. */
export function detectFormat(input: RawInput): TraceFormat | undefined {
  return listFormats().find((format) => format.detect(input));
}
