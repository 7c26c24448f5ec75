/** The settings of an injection campaign (campaign.ts) and its progress as it reports it. */
import type { CampaignTask } from './campaign-tasks.js';
import type { Manipulator } from './manipulator.js';

/** Settings of a campaign. */
export interface CampaignOptions {
  run: string;
  check: string;
  tasks: CampaignTask[];
  /** Plans per task. */
  plans: number;
  /** MAST codes plans are drawn from. */
  modes: string[];
  /** Operators plans may use (default: the modes' own, or the manipulator when there is one). */
  operators?: string[];
  out: string;
  upstream: string;
  anthropicUpstream?: string;
  seed: number;
  concurrency: number;
  manipulator?: Manipulator;
  /** Longest a run command, and a check, may take (default 5 minutes). */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** After each plan: how many are done of how many. */
  onProgress?: (progress: CampaignProgress) => void;
}

/** Progress of a campaign. */
export interface CampaignProgress {
  done: number;
  total: number;
  kept: number;
  discarded: number;
}
