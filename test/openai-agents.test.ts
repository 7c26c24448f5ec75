/**
 * The OpenAI Agents SDK for JS (`@openai/agents`, handoffs, `setDefaultOpenAIClient`) through the
 * recording proxy: examples/pricing-team/openai-agents.ts against its scripted model. The SDK
 * sends no agent names; the proxy names them from the handoffs (`transfer_to_Researcher`,
 * answered `{"assistant": "Researcher"}`) and from the instructions' role sentence after the SDK's
 * handoff preamble.
 */
import { describeFramework } from './pricing-team-checks.js';

describeFramework({
  framework: 'OpenAI Agents SDK',
  app: 'openai-agents.ts',
  calls: ['Coordinator', 'Researcher', 'Researcher', 'Analyst', 'Analyst'],
  researcher: 'Researcher',
});
