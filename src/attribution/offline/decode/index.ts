/**
 * Decode: the named step and agent. `regimes.ts` chooses a run's decoding regime once (familiar,
 * unlike the step-labelled runs, unfamiliar); `decode.ts` applies it; `first-failing-step.ts` and
 * `call-origin.ts` are rules some regimes use; `step-owner.ts` says which agent answers for a step
 * (a tool's output: its caller).
 */
export { regimeOf, type DecodingRegime } from './regimes.js';
export { decode, type Decision } from './decode.js';
