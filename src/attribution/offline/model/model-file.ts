/**
 * The offline model file: a step scorer and an agent scorer (conditional logits), the feature
 * names they were trained on, and provenance (settings, data, content hashes of training traces).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ModelFileError } from '../../../errors.js';
import { AGENT_FEATURE_NAMES } from '../features/agent-features.js';
import { ADAPTATION_CHOICES } from '../scores/agent-prior.js';
import type { LinearScorer } from '../scores/scoring.js';
import { FEATURE_NAMES } from '../features/feature-names.js';
import { AGENT_MODE_FEATURE_NAMES, MODE_FEATURE_NAMES } from '../modes/mode-features.js';
import { modeModelSchema } from '../modes/mode-model.js';
import { UNFAMILIAR_STEPS } from './settings.js';

/** Bumped whenever the file layout or the meaning of a feature changes. */
export const MODEL_FORMAT_VERSION = 6;

const scorerSchema = z.object({
  features: z.array(z.string()),
  mean: z.array(z.number()),
  scale: z.array(z.number()),
  weights: z.array(z.number()),
});

const plattSchema = z.object({ a: z.number(), b: z.number() });
/** Two shares, such as a range's low and high end. */
const share2 = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]);
/** A fitted statement (scores/statement.ts): a logistic regression on a run's signals and its cap. */
const statementFitSchema = z.object({
  logistic: z.object({
    mean: z.array(z.number()),
    scale: z.array(z.number()),
    weights: z.array(z.number()),
    bias: z.number(),
  }),
  cap: z.number().min(0).max(1),
});
const profileSchema = z.object({
  mean: z.array(z.number()),
  scale: z.array(z.number()),
  threshold: z.number(),
  rosters: z.array(z.array(z.string())).optional(),
});
const familiaritySchema = profileSchema.extend({
  names: z.array(z.string()),
  systems: z.array(profileSchema).optional(),
});

const modelSchema = z.object({
  formatVersion: z.literal(MODEL_FORMAT_VERSION),
  step: scorerSchema,
  agent: scorerSchema,
  /** How the two scorers are combined when choosing the step and the agent (settings.ts). */
  decoding: z.object({
    agentWeight: z.number().nonnegative(),
    earliestShare: z.number().gt(0).max(1),
    /** For unfamiliar runs: this agent weight, and the top step named (settings.ts). */
    unfamiliarAgentWeight: z.number().nonnegative().optional(),
    /** For runs unlike the step-labelled ones: the named agent's first failing or likeliest step. */
    unfamiliarStep: z.enum(UNFAMILIAR_STEPS).optional(),
    /** For unfamiliar runs: name the agent rejected first among the nearly most likely. */
    unfamiliarRejectedShare: z.number().min(0).max(1).optional(),
  }),
  /** What the training runs looked like, to flag a trace unlike them (familiarity.ts). */
  familiarity: familiaritySchema,
  /**
   * What the training runs with step labels looked like, when not every training run has one: the
   * earliest-step rule, tuned on such runs, decodes only runs like them; null when no training run
   * has a step label (the rule then decodes none). Absent: the same as `familiarity`.
   */
  stepFamiliarity: familiaritySchema.nullable().optional(),
  /**
   * Platt mappings that turn raw scores into stated confidences, for familiar and unfamiliar runs
   * (calibrate.ts); without them, raw scores are reported.
   */
  calibration: z
    .object({
      familiar: z.object({ agent: plattSchema, step: plattSchema }),
      unfamiliar: z.object({
        agent: plattSchema,
        step: plattSchema,
        stepByRank: z.array(z.number().min(0).max(1)).optional(),
        agentRange: share2.optional(),
        agentByEvidence: share2.optional(),
        stepByEvidence: share2.optional(),
        stepRange: share2.optional(),
        agentFit: statementFitSchema.optional(),
        stepFit: statementFitSchema.optional(),
      }),
    })
    .optional(),
  /** The MAST failure-mode classifier (mode-model.ts); without it, results name no modes. */
  modes: modeModelSchema.optional(),
  /**
   * The per-agent failure-mode classifier (mode-model.ts), learned from runs that label faults per
   * agent; without it, modes are named for the run only.
   */
  agentModes: modeModelSchema.optional(),
  /**
   * The adaptation to one system (`faultline train --base`, scores/agent-prior.ts): its agents'
   * smoothed rates of being responsible and the prior's weight; absent in the shipped model.
   */
  system: z
    .object({
      agentPrior: z
        .object({
          names: z.array(z.string()),
          rates: z.array(z.number().min(0).max(1)),
          base: z.number().gt(0).max(1),
        })
        .refine((prior) => prior.names.length === prior.rates.length, {
          message: 'a rate for each name',
        }),
      weight: z.number().nonnegative(),
      runs: z.number().int().nonnegative(),
      choice: z.enum(ADAPTATION_CHOICES).optional(),
      heldOut: z
        .object({
          adapted: z.number().min(0).max(1),
          blend: z.number().min(0).max(1),
          prior: z.number().min(0).max(1),
          shipped: z.number().min(0).max(1),
        })
        .optional(),
    })
    .optional(),
  training: z.object({
    traces: z.number(),
    stepL2: z.number(),
    agentL2: z.number(),
    /** Content hashes of the training traces, so evaluation can leave them out. */
    traceHashes: z.array(z.string()),
    data: z.array(z.string()),
  }),
});

/** A trained offline model as stored on disk. */
export type OfflineModel = z.infer<typeof modelSchema>;

/** A scorer with the names of its feature columns. */
export type NamedScorer = LinearScorer & { features: string[] };

function checkScorer(
  scorer: NamedScorer,
  expected: readonly string[],
  what: string,
  file: string,
): void {
  if (
    scorer.features.join(',') !== expected.join(',') ||
    scorer.weights.length !== expected.length ||
    scorer.mean.length !== expected.length ||
    scorer.scale.length !== expected.length
  ) {
    throw new ModelFileError(
      `${file}: the ${what} model was trained on another feature set; retrain with \`faultline train\``,
    );
  }
}

/** Checks a parsed model against the running code's feature sets. */
export function validateModel(value: unknown, file: string): OfflineModel {
  const parsed = modelSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelFileError(
      `${file}: not a faultline model file of format version ${MODEL_FORMAT_VERSION} (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}); retrain with \`faultline train\``,
    );
  }
  checkScorer(parsed.data.step, FEATURE_NAMES, 'step', file);
  checkScorer(parsed.data.agent, AGENT_FEATURE_NAMES, 'agent', file);
  const profiles = [parsed.data.familiarity, parsed.data.stepFamiliarity].flatMap((familiarity) =>
    familiarity ? [familiarity, ...(familiarity.systems ?? [])] : [],
  );
  for (const profile of profiles)
    if (
      profile.mean.length !== FEATURE_NAMES.length ||
      profile.scale.length !== FEATURE_NAMES.length
    )
      throw new ModelFileError(
        `${file}: the familiarity profile was made with another feature set; retrain with \`faultline train\``,
      );
  for (const [modes, names] of [
    [parsed.data.modes, MODE_FEATURE_NAMES],
    [parsed.data.agentModes, AGENT_MODE_FEATURE_NAMES],
  ] as const)
    if (
      modes &&
      (modes.features.join(',') !== names.join(',') ||
        modes.modes.some((mode) => mode.weights.length !== names.length))
    )
      throw new ModelFileError(
        `${file}: the failure-mode model was trained on another feature set; retrain with \`faultline train\``,
      );
  return parsed.data;
}

/** Reads and validates a model file. */
export function readModelFile(file: string): OfflineModel {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ModelFileError(
      `${file}: cannot read the model file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ModelFileError(`${file}: the model file is not valid JSON`, { cause: error });
  }
  return validateModel(value, file);
}
