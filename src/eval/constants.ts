/** Names shared by the eval command and the evaluation runner, kept light for start-up. */

/** The pseudo-method that cross-validates the offline model on the evaluated traces, by question. */
export const CROSS_VALIDATED_OFFLINE = 'offline-cv';

/** The pseudo-method that predicts each system's runs with a model trained on the other systems. */
export const LEAVE_ONE_SYSTEM_OUT = 'offline-loso';

/**
 * The pseudo-method that adapts the offline model to the evaluated runs' system (`faultline train
 * --base`: a prior over its agents' names), learned from the other folds, by question.
 */
export const ADAPTED_OFFLINE = 'offline-adapted';

/** The pseudo-methods that train the offline model on the evaluated traces themselves. */
export const HELD_OUT_METHODS: readonly string[] = [
  CROSS_VALIDATED_OFFLINE,
  LEAVE_ONE_SYSTEM_OUT,
  ADAPTED_OFFLINE,
];

/**
 * The tag of LLM methods run with the Who&When paper's prompts, in the name their results are
 * stored and reported under (`all-at-once [openai:gpt-4o, paper prompts]`).
 */
export const PAPER_PROMPTS_TAG = 'paper prompts';
