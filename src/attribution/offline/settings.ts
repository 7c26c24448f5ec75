/** Training settings of the offline model, apart from the trainer so the CLI starts light. */

/** Training settings; the defaults are what the shipped model uses. */
export interface TrainSettings {
  stepL2: number;
  agentL2: number;
  /** Most Newton iterations per fit. */
  iterations: number;
  /** Weight of the agent scorer when choosing the step: argmax p(step) · p(agent)^w. */
  agentWeight: number;
}

export const DEFAULT_TRAIN_SETTINGS: TrainSettings = {
  stepL2: 0.2,
  agentL2: 0.1,
  iterations: 50,
  agentWeight: 0.5,
};
