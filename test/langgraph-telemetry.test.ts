/**
 * LangGraph.js traced by OpenInference's LangChain.js instrumentation
 * (`@arizeai/openinference-instrumentation-langchain`) into the OTLP receiver:
 * examples/pricing-team/langgraph.ts `--otel` against its scripted model, Chat Completions and the
 * Responses API, each streamed and not. Agents are the supervisor graph's nodes (`supervisor`, `researcher`,
 * `analyst`); the handoffs' `ParentCommand` is no error; the app's root span marks the outcome.
 */
import { describeTelemetryTeam } from './telemetry-team.js';

describeTelemetryTeam({
  framework: 'LangGraph.js with OpenInference',
  app: 'langgraph.ts',
  variants: [
    { name: 'chat', args: ['--otel', '--api', 'chat', '--self-check'] },
    {
      name: 'responses-stream',
      args: ['--otel', '--api', 'responses', '--stream', '--self-check'],
    },
    { name: 'responses', args: ['--otel', '--api', 'responses', '--self-check'] },
    { name: 'chat-stream', args: ['--otel', '--api', 'chat', '--stream', '--self-check'] },
  ],
  format: 'openinference',
  calls: [
    'supervisor',
    'researcher',
    'researcher',
    'supervisor',
    'analyst',
    'analyst',
    'supervisor',
  ],
  researcher: 'researcher',
  fixture: 'openinference-langgraph.json',
});
