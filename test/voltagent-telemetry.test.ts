/**
 * VoltAgent's own observability (`VoltAgentObservability({ spanProcessors })` with the OTLP/HTTP
 * exporter) into the OTLP receiver: examples/pricing-team/voltagent.ts against its scripted model,
 * Chat Completions and the Responses API, each streamed and not. Agents are VoltAgent's names (`Coordinator`,
 * its sub-agents `Researcher` and `Analyst` by `subagent.name`, not the supervisor's
 * `entity.name` they also carry); each model call is read from what VoltAgent reports of it (its
 * tool calls' spans, the agent's output), one step each; the app's root span (the coordinator's
 * `parentSpan`) marks the outcome. `NODE_ENV=production` keeps VoltAgent from fetching its model
 * list from the internet at start.
 */
import { describeTelemetryTeam } from './telemetry-team.js';

describeTelemetryTeam({
  framework: 'VoltAgent observability',
  app: 'voltagent.ts',
  variants: [
    { name: 'chat', args: ['--api', 'chat', '--self-check'] },
    { name: 'responses-stream', args: ['--api', 'responses', '--stream', '--self-check'] },
    { name: 'responses', args: ['--api', 'responses', '--self-check'] },
    { name: 'chat-stream', args: ['--api', 'chat', '--stream', '--self-check'] },
  ],
  format: 'voltagent',
  calls: [
    'Coordinator',
    'Researcher',
    'Researcher',
    'Coordinator',
    'Analyst',
    'Analyst',
    'Coordinator',
  ],
  researcher: 'Researcher',
  fixture: 'voltagent-observability.json',
  env: { NODE_ENV: 'production' },
});
