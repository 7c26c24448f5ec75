/**
 * The Vercel AI SDK 6's own telemetry (`experimental_telemetry: { isEnabled: true, functionId }`)
 * into the OTLP receiver: examples/pricing-team/ai-sdk.ts against its scripted model, Chat
 * Completions and the Responses API, each streamed and not. Agents are the `functionId`s; the app
 * wraps the run in a root span of its own and marks the outcome there (`faultline.outcome`).
 */
import { describeTelemetryTeam } from './telemetry-team.js';

describeTelemetryTeam({
  framework: 'Vercel AI SDK 6 telemetry',
  app: 'ai-sdk.ts',
  variants: [
    { name: 'chat', args: ['--api', 'chat', '--self-check'] },
    { name: 'responses-stream', args: ['--api', 'responses', '--stream', '--self-check'] },
    { name: 'responses', args: ['--api', 'responses', '--self-check'] },
    { name: 'chat-stream', args: ['--api', 'chat', '--stream', '--self-check'] },
  ],
  format: 'ai-sdk',
  calls: ['coordinator', 'researcher', 'researcher', 'analyst', 'analyst', 'coordinator'],
  researcher: 'researcher',
  fixture: 'ai-sdk-telemetry.json',
});
