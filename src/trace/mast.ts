/**
 * MAST, the Multi-Agent System Failure Taxonomy (Cemri et al., "Why Do Multi-Agent LLM Systems
 * Fail?", 2025): 14 failure modes in three categories, as data. Every output that names a mode
 * (labels, results, reports, the page) takes its name, definition and hint from here.
 */

/** A MAST category. */
export type MastCategory =
  'specification issues' | 'inter-agent misalignment' | 'task verification';

/** One failure mode. */
export interface MastMode {
  /** `1.1` … `3.3` (AEGIS writes `FM-1.1`). */
  code: string;
  name: string;
  category: MastCategory;
  /** What the mode is, in one sentence. */
  definition: string;
  /** What to change in the system when it occurs. */
  fix: string;
}

/** The 14 modes, in code order. */
export const MAST_MODES: readonly MastMode[] = [
  {
    code: '1.1',
    name: 'Disobey task specification',
    category: 'specification issues',
    definition: 'An agent fails to follow the task’s stated constraints or requirements.',
    fix: 'State the task’s constraints explicitly in each agent’s instructions and check outputs against them.',
  },
  {
    code: '1.2',
    name: 'Disobey role specification',
    category: 'specification issues',
    definition:
      'An agent acts outside its assigned role, taking on another agent’s responsibilities.',
    fix: 'Make roles and their boundaries explicit, and route work only to the agent whose role it is.',
  },
  {
    code: '1.3',
    name: 'Step repetition',
    category: 'specification issues',
    definition: 'A step or phase that is already complete is repeated needlessly.',
    fix: 'Track what has been done (a plan or ledger) and detect repeated actions.',
  },
  {
    code: '1.4',
    name: 'Loss of conversation history',
    category: 'specification issues',
    definition: 'Earlier context is lost or truncated, so the run reverts to an earlier state.',
    fix: 'Keep the relevant history in the context (summaries, memory) instead of truncating it.',
  },
  {
    code: '1.5',
    name: 'Unaware of termination conditions',
    category: 'specification issues',
    definition: 'Agents do not recognise when the task is done, or stop too late.',
    fix: 'Define when the task is complete and who decides, and check it after each step.',
  },
  {
    code: '2.1',
    name: 'Conversation reset',
    category: 'inter-agent misalignment',
    definition: 'The dialogue restarts unexpectedly, losing context and progress.',
    fix: 'Carry state across turns and avoid restarting the exchange without the context.',
  },
  {
    code: '2.2',
    name: 'Fail to ask for clarification',
    category: 'inter-agent misalignment',
    definition: 'An agent proceeds on unclear or incomplete information instead of asking.',
    fix: 'Let agents ask for missing information, and make asking cheaper than guessing.',
  },
  {
    code: '2.3',
    name: 'Task derailment',
    category: 'inter-agent misalignment',
    definition: 'The run drifts away from the intended objective.',
    fix: 'Restate the objective at hand-offs and check each step’s relevance to it.',
  },
  {
    code: '2.4',
    name: 'Information withholding',
    category: 'inter-agent misalignment',
    definition: 'An agent has information others need and does not share it.',
    fix: 'Require hand-offs to pass on findings, and have receivers check what they got.',
  },
  {
    code: '2.5',
    name: 'Ignored other agent’s input',
    category: 'inter-agent misalignment',
    definition: 'An agent disregards recommendations or results from other agents.',
    fix: 'Make agents acknowledge and respond to other agents’ inputs explicitly.',
  },
  {
    code: '2.6',
    name: 'Reasoning-action mismatch',
    category: 'inter-agent misalignment',
    definition: 'What an agent reasons and what it then does disagree.',
    fix: 'Check actions against the stated reasoning before they are executed.',
  },
  {
    code: '3.1',
    name: 'Premature termination',
    category: 'task verification',
    definition:
      'The run ends before the objectives are met or the needed information is exchanged.',
    fix: 'Check completion criteria before terminating.',
  },
  {
    code: '3.2',
    name: 'No or incomplete verification',
    category: 'task verification',
    definition: 'Results are not checked, or checked only partly, before they are accepted.',
    fix: 'Add a verification step with concrete checks (tests, recomputation, sources).',
  },
  {
    code: '3.3',
    name: 'Incorrect verification',
    category: 'task verification',
    definition: 'A verification step is done but wrongly, approving a faulty result.',
    fix: 'Make the verifier independent (run the code, recompute, cite) rather than re-read.',
  },
];

const BY_CODE = new Map(MAST_MODES.map((mode) => [mode.code, mode]));

/** The canonical code of a mode as sources write it (`FM-2.3`, `2.3`), or undefined if not MAST. */
export function mastCode(written: string): string | undefined {
  const code = /^(?:FM[-_ ]?)?(\d\.\d)$/i.exec(written.trim())?.[1];
  return code !== undefined && BY_CODE.has(code) ? code : undefined;
}

/** The mode of a code, if it is one. */
export function mastMode(code: string): MastMode | undefined {
  const canonical = mastCode(code);
  return canonical === undefined ? undefined : BY_CODE.get(canonical);
}

/** `2.6 Reasoning-action mismatch`, or the code itself when it is not a MAST mode. */
export function mastLabel(code: string): string {
  const mode = mastMode(code);
  return mode ? `${mode.code} ${mode.name}` : code;
}
