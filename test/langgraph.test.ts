/**
 * LangGraph.js with `@langchain/langgraph-supervisor` and `@langchain/openai` through the
 * recording proxy: examples/pricing-team/langgraph.ts against its scripted model. Agents are named
 * from the supervisor's handoffs (`transfer_to_researcher`, `transfer_back_to_supervisor`) and the
 * supervisor's prompt, the docs' own "You are a team supervisor managing …".
 */
import { describeFramework } from './pricing-team-checks.js';

describeFramework({
  framework: 'LangGraph supervisor',
  app: 'langgraph.ts',
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
});
