/**
 * Who&When Pro's labels: the failure a record labels (agents, step, MAST modes, reason), read from
 * its `ground_truth` or from the same `mistake_*` fields at its top level (who-and-when-pro.ts).
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { MAST_MODES, mastCode } from '../mast.js';
import type { TraceLabels } from '../model.js';

const NAME = 'who-and-when-pro';

/** Optional text and a step number (a number or numeric text): also the record's and its steps'. */
export const text = z.string().nullish();
export const stepNumber = z.union([z.number(), z.string()]).nullish();
const names = z.union([z.string(), z.array(z.string())]).nullish();

const groundTruthSchema = z.object({
  agent: names,
  mistake_agent: names,
  step: stepNumber,
  mistake_step: stepNumber,
  mode: names,
  modes: names,
  failure_mode: names,
  failure_modes: names,
  reason: text,
  mistake_reason: text,
});

/** The fields of a record that label its failure (in this order among the record's fields). */
export const labelFields = {
  ground_truth: groundTruthSchema.nullish(),
  mistake_agent: names,
  mistake_step: stepNumber,
  mistake_reason: text,
};
type Run = z.infer<z.ZodObject<typeof labelFields>>;

const listOf = (value: string | string[] | null | undefined): string[] =>
  (value === null || value === undefined ? [] : Array.isArray(value) ? value : [value])
    .map((item) => item.trim())
    .filter(Boolean);

/** Letters and digits alone, lower case: how a mode's name is matched (`Task derailment`). */
const bare = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '');
const CODE_BY_NAME = new Map(MAST_MODES.map((mode) => [bare(mode.name), mode.code]));

/**
 * A mode's MAST code, written as a code (`FM-2.3`, `2.3`), a name (`Task derailment`) or both
 * (`FM-2.3 Task derailment`); any other text is kept as written.
 */
function modeCode(written: string): string {
  const leading = /^(?:FM[-_ ]?)?(\d\.\d)\b/i.exec(written)?.[1];
  return (
    mastCode(written) ??
    (leading !== undefined ? mastCode(leading) : undefined) ??
    CODE_BY_NAME.get(bare(written)) ??
    written
  );
}

/** A step number written as a number or as numeric text; undefined otherwise. */
export function numberOf(value: string | number | null | undefined): number | undefined {
  const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) ? number : undefined;
}

/** Where a record writes its label step: the field's position and the value written there. */
function writtenStep(run: Run): { field: string; value: string | number } | undefined {
  const truth = run.ground_truth;
  const fields: [string, string | number | null | undefined][] = [
    ['ground_truth.step', truth?.step],
    ['ground_truth.mistake_step', truth?.mistake_step],
    ['mistake_step', run.mistake_step],
  ];
  const found = fields.find(([, value]) => value !== null && value !== undefined);
  return found ? { field: found[0], value: found[1]! } : undefined;
}

/**
 * The label step as an index into the steps: the entry carrying that `step` number, else the
 * number as a 0-based index; undefined when the record labels no step.
 */
function labelStep(
  run: Run,
  read: readonly { number?: number }[],
  where: { file: string; at: (field: string) => string },
): number | undefined {
  const written = writtenStep(run);
  if (!written) return undefined;
  const number = numberOf(written.value);
  const byNumber = read.findIndex((entry) => entry.number !== undefined && entry.number === number);
  const index = byNumber >= 0 ? byNumber : number;
  if (index !== undefined && index >= 0 && index < read.length) return index;
  throw new TraceFormatError(
    where.file,
    `the labelled step ${JSON.stringify(written.value)} is no step of the trajectory: no entry carries that \`step\`, and it is no index of its ${read.length} entries (counted from 0)`,
    { format: NAME, position: where.at(written.field) },
  );
}

/** The labels a record writes; `read` is its steps, with the number each carries (`step`). */
export function labelsOf(
  run: Run,
  read: readonly { number?: number }[],
  where: { file: string; at: (field: string) => string },
): TraceLabels {
  const truth = run.ground_truth;
  const agents = listOf(truth?.agent ?? truth?.mistake_agent ?? run.mistake_agent);
  const modes = [
    ...listOf(truth?.mode),
    ...listOf(truth?.modes),
    ...listOf(truth?.failure_mode),
    ...listOf(truth?.failure_modes),
  ].map(modeCode);
  const step = labelStep(run, read, where);
  const reason = truth?.reason ?? truth?.mistake_reason ?? run.mistake_reason;
  return {
    // `agents` is for several responsible agents; one is `agent`, as Who&When labels it.
    ...(agents.length === 1 ? { agent: agents[0] } : agents.length > 1 ? { agents } : {}),
    ...(step !== undefined ? { step } : {}),
    ...(reason ? { reason } : {}),
    ...(modes.length > 0 && agents.length > 0
      ? { faults: agents.flatMap((agent) => modes.map((mode) => ({ agent, mode }))) }
      : {}),
    ...(modes.length > 0 && agents.length === 0 ? { modes } : {}),
  };
}
