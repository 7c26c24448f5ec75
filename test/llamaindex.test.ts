/**
 * LlamaIndex.TS (`@llamaindex/workflow`'s `multiAgent`, `@llamaindex/openai`) through the
 * recording proxy: examples/pricing-team/llamaindex.ts against its scripted model, on Chat
 * Completions (LlamaIndex.TS streams every model call; `--stream` streams the workflow's events).
 * The agents hand over with LlamaIndex's `handOff {"toAgent": …}`, answered "Agent X is now
 * handling the request…"; the worker prompts state no name, so the workers are named from the
 * handoffs and keep their names by their prompts; the coordinator from its prompt. The price
 * tool's object reaches the model with its JSON quotes stripped.
 */
import { describeFramework } from './pricing-team-checks.js';

describeFramework({
  framework: 'LlamaIndex.TS multi-agent',
  app: 'llamaindex.ts',
  calls: ['CoordinatorAgent', 'ResearchAgent', 'ResearchAgent', 'AnalystAgent', 'AnalystAgent'],
  researcher: 'ResearchAgent',
  variants: [
    { api: 'chat', stream: false },
    { api: 'chat', stream: true },
  ],
});
