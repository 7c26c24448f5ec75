/**
 * The OpenAI Agents SDK traced by OpenInference's bridge
 * (`@arizeai/openinference-instrumentation-openai-agents`) into the OTLP receiver:
 * examples/pricing-team/openai-agents.ts `--otel` against its scripted model, the Responses API
 * and Chat Completions, each streamed and not. Replies are read from the output messages (the Responses API's
 * `message.contents`), never the raw response JSON; the app's root span marks the outcome.
 */
import { describeTelemetryTeam } from './telemetry-team.js';

describeTelemetryTeam({
  framework: 'OpenAI Agents SDK with OpenInference',
  app: 'openai-agents.ts',
  variants: [
    {
      name: 'responses-stream',
      args: ['--otel', '--api', 'responses', '--stream', '--self-check'],
    },
    { name: 'chat', args: ['--otel', '--api', 'chat', '--self-check'] },
    { name: 'responses', args: ['--otel', '--api', 'responses', '--self-check'] },
    { name: 'chat-stream', args: ['--otel', '--api', 'chat', '--stream', '--self-check'] },
  ],
  format: 'openinference',
  calls: ['Coordinator', 'Researcher', 'Researcher', 'Analyst', 'Analyst'],
  researcher: 'Researcher',
  fixture: 'openinference-openai-agents.json',
});
