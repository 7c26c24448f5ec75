/** Counts one method and setting's records as they arrive and reports progress after each. */
import { namesAnAgent } from '../trace/agents.js';
import { agentCorrect, stepCorrect } from './metrics.js';
import type { EvalRecord } from './result-store.js';

/** Progress after each trace. */
export interface EvalProgress {
  method: string;
  useGroundTruth: boolean;
  done: number;
  total: number;
  agentAccuracy: number;
  stepAccuracy: number;
  costUsd: number;
  resumed: number;
}

/** A method and setting's running tally; `report` adds a record to the run's records. */
export class ProgressCounter {
  done = 0;
  private hitsAgent = 0;
  private hitsStep = 0;
  private stepped = 0;
  private scored = 0;
  private cost = 0;
  private resumed = 0;

  constructor(
    private readonly method: string,
    private readonly useGroundTruth: boolean,
    /** Records expected (traces, or traces times seeds for the held-out methods). */
    public total: number,
    private readonly records: EvalRecord[],
    private readonly onProgress: ((progress: EvalProgress) => void) | undefined,
  ) {}

  /** Keeps the record and counts it; `resumed` when it came from the store. */
  report(record: EvalRecord, resumed: boolean): void {
    this.records.push(record);
    this.done += 1;
    if (resumed) this.resumed += 1;
    // Records of runs labelled with modes only count for the modes, not for accuracy.
    if (namesAnAgent(record.label)) {
      this.scored += 1;
      if (agentCorrect(record.predicted.agent, record.label.agent, record.label.agents))
        this.hitsAgent += 1;
    }
    if (record.label.step !== undefined) {
      this.stepped += 1;
      this.hitsStep += stepCorrect(record.predicted.step, record.label.step) ? 1 : 0;
    }
    this.cost += record.usage.costUsd ?? 0;
    this.onProgress?.(this.progress());
  }

  private progress(): EvalProgress {
    return {
      method: this.method,
      useGroundTruth: this.useGroundTruth,
      done: this.done,
      total: this.total,
      agentAccuracy: this.scored > 0 ? this.hitsAgent / this.scored : 0,
      stepAccuracy: this.stepped > 0 ? this.hitsStep / this.stepped : 0,
      costUsd: this.cost,
      resumed: this.resumed,
    };
  }
}
