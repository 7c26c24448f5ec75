/**
 * Explain: the reason a result gives (`reason.ts`), the signals that raised the named step's score
 * (`evidence.ts`) and the lines that show them (`quotes.ts`).
 */
export { explainDecision } from './reason.js';
export { explainStep, type StepExplanation } from './evidence.js';
