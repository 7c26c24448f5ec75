/**
 * Features: what the scorers read from a trace. `run-facts.ts` computes once per trace what every
 * step's features need, `feature-families.ts` fills each step's features family by family,
 * `features.ts` lays them out in `feature-names.ts`'s column order with the candidate mask, and
 * `agent-features.ts` summarises each agent for the agent scorer. Text is read by `tokens.ts`,
 * `phrases.ts` and `text-signals.ts`.
 */
export { FEATURE_NAMES, type FeatureName } from './feature-names.js';
export { AGENT_FEATURE_NAMES, computeAgentFeatures } from './agent-features.js';
export { attributionInputs, hasStepLabel, isLabelled, stepInputs } from './inputs.js';
