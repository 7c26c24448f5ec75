/**
 * Issue 53's table of docs/MODEL.md: what an unfamiliar run states against how often it is right,
 * each system held out in turn and predicted by a model trained, scorers and calibration alike, on
 * the others alone (the statement's own held-out systems are four, nested); folders after
 * `--unseen` are predicted by a model trained on every training folder. Per system: mean stated
 * agent and step figure, accuracy, overstatement (stated − right, at most +0.10 wanted) and
 * understatement (right − stated, at most 0.25 wanted), how many statements fell below chance,
 * and the area under the ROC curve of the stated agent figure (right against wrong verdicts),
 * within each system and pooled over the held-out systems.
 *
 *   node --import tsx scripts/statement-honesty.ts ../shared/datasets/who-and-when \
 *     ../shared/datasets/aegis --unseen injected/runs
 */
import { attributeWithSignals } from '../src/attribution/offline/attribute/attributor.js';
import type { OfflineModel } from '../src/attribution/offline/model/model-file.js';
import { trainModelFile } from '../src/attribution/offline/train/train-model-file.js';
import { namesResponsible, responsibleAgents } from '../src/trace/agents.js';
import type { Trace } from '../src/trace/model.js';
import { subsetOf } from '../src/trace/subset.js';
import { labelledRuns } from './labelled-runs.js';

const args = process.argv.slice(2);
const at = args.indexOf('--unseen');
const traces = await labelledRuns('statement-honesty.ts', at >= 0 ? args.slice(0, at) : args);
const unseen = at >= 0 ? await labelledRuns('statement-honesty.ts', args.slice(at + 1)) : [];
const systems = [...new Set(traces.map(subsetOf))];
const parts = ['scorers', 'calibration'] as const;

/** One judged verdict: stated figure, right or not, and chance. */
interface Judged {
  stated: number;
  correct: boolean;
  chance: number;
}

/** The area under the ROC curve of `stated` for right against wrong verdicts (ties count half). */
export function rocAuc(items: readonly Judged[]): number {
  const right = items.filter((item) => item.correct).map((item) => item.stated);
  const wrong = items.filter((item) => !item.correct).map((item) => item.stated);
  if (right.length === 0 || wrong.length === 0) return NaN;
  let wins = 0;
  for (const r of right) for (const w of wrong) wins += r > w ? 1 : r === w ? 0.5 : 0;
  return wins / (right.length * wrong.length);
}

const pct = (value: number) => (Number.isNaN(value) ? '–' : `${(100 * value).toFixed(1)}%`);
const signed = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(3)}`;
const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/** The judged agent and step verdicts of a model on runs it never saw. */
function judge(runs: readonly Trace[], model: OfflineModel): { agent: Judged[]; step: Judged[] } {
  const agent: Judged[] = [];
  const step: Judged[] = [];
  for (const trace of runs) {
    const { attribution, signals } = attributeWithSignals(trace, model);
    if (attribution.agentConfidence !== undefined && signals)
      agent.push({
        stated: attribution.agentConfidence,
        correct: namesResponsible(attribution.agent, trace.labels),
        chance: 1 / signals.agents,
      });
    if (attribution.confidence !== undefined && signals && trace.labels?.step !== undefined)
      step.push({
        stated: attribution.confidence,
        correct: attribution.step === trace.labels.step,
        chance: 1 / signals.steps,
      });
  }
  return { agent, step };
}

/** Stated, right, over, under, below chance (and AUC) of a list of verdicts. */
function cells(judged: readonly Judged[], auc: boolean): string {
  if (judged.length === 0) return `– | – | – | – | –${auc ? ' | –' : ''}`;
  const stated = mean(judged.map((item) => item.stated));
  const right = mean(judged.map((item) => (item.correct ? 1 : 0)));
  const below = judged.filter((item) => item.stated < item.chance - 1e-4).length;
  const roc = auc ? ` | ${rocAuc(judged).toFixed(2)}` : '';
  return `${pct(stated)} | ${pct(right)} | ${signed(stated - right)} | ${signed(right - stated)} | ${below}${roc}`;
}

const started = Date.now();
console.log(
  '| held-out system | n | agent stated | agent right | over | under | below chance | agent AUC | step stated | step right | over | under | below chance |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|',
);
const pooled: Judged[] = [];
const row = (system: string, runs: readonly Trace[], model: OfflineModel) => {
  const { agent, step } = judge(runs, model);
  console.log(`| ${system} | ${runs.length} | ${cells(agent, true)} | ${cells(step, false)} |`);
  // Where a system has runs with one responsible agent and runs with several, each kind apart.
  const single = runs.filter((trace) => responsibleAgents(trace).length === 1);
  if (single.length > 0 && single.length < runs.length)
    for (const [kind, some] of [
      ['single-cause', single],
      ['multi-cause', runs.filter((trace) => responsibleAgents(trace).length > 1)],
    ] as const) {
      const judged = judge(some, model);
      console.log(
        `| ${system}, ${kind} | ${some.length} | ${cells(judged.agent, true)} | ${cells(judged.step, false)} |`,
      );
    }
  return agent;
};
for (const system of systems) {
  const model = trainModelFile(
    traces.filter((trace) => subsetOf(trace) !== system),
    { parts },
  );
  pooled.push(
    ...row(
      system,
      traces.filter((trace) => subsetOf(trace) === system),
      model,
    ),
  );
  process.stderr.write('.');
}
console.log(
  `| pooled over the held-out systems | ${pooled.length} | ${cells(pooled, true)} | | | | | |`,
);
if (unseen.length > 0) {
  const all = trainModelFile(traces, { parts });
  for (const system of new Set(unseen.map(subsetOf)))
    row(
      `${system} (never trained on)`,
      unseen.filter((trace) => subsetOf(trace) === system),
      all,
    );
}
process.stderr.write(`\n${((Date.now() - started) / 1000).toFixed(0)} s\n`);
