/**
 * The work of `faultline eval`: read traces, run methods with resumption and progress, report.
 */
import { writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { DEFAULT_MODEL_PATH } from '../../attribution/offline/attribute/attributor.js';
import { DIVERGE } from '../../attribution/diverge/method.js';
import { getMethod } from '../../attribution/registry.js';
import { databaseLocation, faultlineHome } from '../../config.js';
import { openDatabase } from '../../store/database.js';
import { Repository } from '../../store/repository.js';
import { UserError } from '../../errors.js';
import { isLlmMethod, namesModes, type LlmOptions } from '../../attribution/llm/catalog.js';
import { renderHtmlReport } from '../../eval/report-html.js';
import { renderMarkdownReport, terminalReport } from '../../eval/report-markdown.js';
import { ADAPTED_OFFLINE, HELD_OUT_METHODS } from '../../eval/constants.js';
import { modelFileHash, runEvaluation, type EvalProgress } from '../../eval/run-eval.js';
import { evaluateModes } from '../../eval/modes.js';
import { seedsOf } from '../../attribution/offline/train/folds.js';
import { isLabelled } from '../../attribution/offline/features/inputs.js';
import { labelledModes } from '../../attribution/offline/modes/mode-model.js';
import { ResultStore } from '../../eval/result-store.js';
import { methodLabel } from '../../eval/method-label.js';
import { summariseEvaluation, type EvalSummary } from '../../eval/summary.js';
import { carriesInjection, summariseInjected } from '../../eval/injected.js';
import { resolveReferences } from '../../eval/references.js';
import { shownPaths } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { forEachTrace, finishBatch } from '../batch.js';
import { foldPlanOf, type FoldFlags } from '../fold-options.js';
import { wholeNumber } from '../flag-values.js';
import { llmOptionsOf, type LlmFlags } from '../llm-options.js';
import { terminalSafe } from '../terminal-text.js';

export interface EvalFlags extends LlmFlags, FoldFlags {
  concurrency: string;
  method: string;
  modelFile?: string;
  groundTruth: boolean;
  both?: boolean;
  out?: string[];
  store?: string;
  fresh?: boolean;
  includeTrain?: boolean;
  format?: string;
}

const REPORT_KINDS = new Set(['.html', '.md', '.json']);

function progressPrinter(): (progress: EvalProgress) => void {
  const interactive = Boolean(process.stderr.isTTY);
  let lastLine = '';
  return (progress) => {
    const line = `${methodLabel(progress.method, progress.useGroundTruth)}: ${progress.done}/${progress.total} traces, agent ${(progress.agentAccuracy * 100).toFixed(1)}%, step ${(progress.stepAccuracy * 100).toFixed(1)}% so far, cost $${progress.costUsd.toFixed(4)}${progress.resumed > 0 ? `, ${progress.resumed} from earlier runs` : ''}`;
    const finished = progress.done === progress.total;
    if (interactive) {
      process.stderr.write(`\r${line.padEnd(lastLine.length)}${finished ? '\n' : ''}`);
      lastLine = line;
    } else if (finished || progress.done % Math.max(1, Math.ceil(progress.total / 10)) === 0) {
      process.stderr.write(`${line}\n`);
    }
  };
}

/** The `eval` command's work, loaded only when the command runs. */
export async function runEvalCommand(
  paths: string[],
  flags: EvalFlags,
  exit: (code: number) => void,
): Promise<void> {
  const methods = flags.method
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const llm = llmOptionsOf(flags);
  checkLlmFlags(methods, flags, llm);
  const concurrency = wholeNumber(flags.concurrency, '--concurrency', 1);
  const plan = foldPlanOf(flags);
  // Unknown methods, a missing --model or a missing key fail here, before any trace is read.
  for (const method of methods) if (!HELD_OUT_METHODS.includes(method)) getMethod(method, { llm });
  for (const file of flags.out ?? []) {
    if (!REPORT_KINDS.has(extname(file).toLowerCase()))
      throw new UserError(`${file}: reports are .html, .md or .json`);
  }
  const modelPath = flags.modelFile ?? DEFAULT_MODEL_PATH;
  const modelHash = modelFileHash(modelPath).slice(0, 12);
  const storeFile = flags.store ?? join(faultlineHome(), 'eval', `results-${modelHash}.jsonl`);
  const store = new ResultStore(storeFile, { fresh: Boolean(flags.fresh) });

  const traces: Trace[] = [];
  const outcome = await forEachTrace(
    paths,
    flags.format ? { format: flags.format } : {},
    (trace) => {
      traces.push(trace);
    },
  );
  // A set with only mode labels (MAD) runs only the methods that name modes (LLM methods; the
  // offline ones are scored by evaluateModes below), and gets only the modes figures.
  const modeLabelled = traces.some((trace) => labelledModes(trace) !== undefined);
  const labelled = traces.some(isLabelled);
  if (traces.length > 0 && !modeLabelled && !labelled)
    throw new UserError(
      `nothing to evaluate: none of the ${traces.length} trace${traces.length === 1 ? '' : 's'} read from ${shownPaths(paths)} is labelled (eval needs runs that name the responsible agent, and the decisive step where known, or their MAST modes); label runs on the page (faultline launch) or evaluate a labelled set such as the Who&When folders`,
    );
  // On a user's injected runs, the offline model adapted to them (learned from the other folds)
  // is measured beside it.
  if (
    methods.includes('offline') &&
    !methods.includes(ADAPTED_OFFLINE) &&
    traces.some(carriesInjection)
  ) {
    methods.push(ADAPTED_OFFLINE);
    process.stderr.write(
      `these runs carry injected faults: ${ADAPTED_OFFLINE} (the offline model adapted to the other folds' runs of each system, as train --base does) is measured beside offline\n`,
    );
  }
  addDiverge(methods, traces);
  const runsMethods =
    labelled || (modeLabelled && methods.some((method) => namesModes(method, llm.prompts)));
  const { records, info } = runsMethods
    ? await runEvaluation(traces, store, {
        methods,
        groundTruthSettings: flags.both ? [true, false] : [flags.groundTruth],
        modelPath,
        includeTrain: Boolean(flags.includeTrain),
        llm,
        concurrency,
        plan,
        onProgress: progressPrinter(),
      })
    : {
        records: [],
        info: {
          excludedTrainingTraces: 0,
          includeTrain: Boolean(flags.includeTrain),
          unlabelled: traces.length,
          plan,
        },
      };
  // Failure modes are scored on the runs labelled with them: the offline methods here, the
  // others from their records.
  const modes = evaluateModes(traces, {
    methods,
    modelPath,
    includeTrain: Boolean(flags.includeTrain),
    folds: plan.folds,
    seed: seedsOf(plan)[0] ?? 0,
    records,
  });
  const injected = summariseInjected(records, traces, info.plan);
  const summary = {
    ...summariseEvaluation(records, traces, info),
    ...(modes ? { modes } : {}),
    ...(injected ? { injected } : {}),
  };
  process.stdout.write(terminalReport(terminalSafe(summary)));
  process.stderr.write(`results stored in ${store.file}\n`);
  await saveForPage(`${methods.join(', ')} on ${shownPaths(paths)}`, methods, traces, summary);
  await writeReports(flags.out ?? [], summary, traces);
  exit(finishBatch(outcome));
}

/**
 * Adds `diverge` to the methods when labelled runs name a passing run of their task read with them
 * (`reference`: faultline inject's runs name their clean run), and says so.
 */
function addDiverge(methods: string[], traces: readonly Trace[]): void {
  if (methods.includes(DIVERGE)) return;
  const references = resolveReferences(traces);
  const runs = traces.filter((trace) => isLabelled(trace) && references.has(trace)).length;
  if (runs === 0) return;
  methods.push(DIVERGE);
  process.stderr.write(
    `${runs} labelled run${runs === 1 ? ' names' : 's name'} a passing run of the same task among these traces (its reference): diverge, which compares each with it, is measured beside ${methods.slice(0, -1).join(', ')}\n`,
  );
}

/** --model and --prompts paper concern LLM methods only: refused when --method names none. */
function checkLlmFlags(methods: string[], flags: EvalFlags, llm: LlmOptions): void {
  if (flags.model && !methods.some(isLlmMethod))
    throw new UserError(
      `--model names the model of an LLM method, and none of ${methods.join(', ')} uses one; add an LLM method (all-at-once, step-by-step, binary-search, hybrid) to --method, or drop --model`,
    );
  if (llm.prompts === 'paper' && !methods.some(isLlmMethod))
    throw new UserError(
      `--prompts paper gives LLM methods the Who&When paper's prompts, and none of ${methods.join(', ')} sends any; add all-at-once, step-by-step or binary-search to --method, or drop --prompts`,
    );
}

/** Keeps the evaluation in the database too, so `faultline launch` can show it (a warning if not). */
async function saveForPage(
  title: string,
  methods: string[],
  traces: readonly unknown[],
  summary: EvalSummary,
): Promise<void> {
  try {
    const db = await openDatabase(databaseLocation());
    try {
      await new Repository(db).saveEvaluation(title, methods, traces.length, summary);
    } finally {
      await db.close();
    }
  } catch (error) {
    process.stderr.write(
      `faultline: warning: the evaluation was not saved for the web page (${error instanceof Error ? error.message : String(error)})\n`,
    );
  }
}

/** Writes each --out report, its kind by its extension. */
async function writeReports(
  files: readonly string[],
  summary: EvalSummary,
  traces: readonly Trace[],
): Promise<void> {
  for (const file of files) {
    const kind = extname(file).toLowerCase();
    const text =
      kind === '.html'
        ? renderHtmlReport(summary, traces)
        : kind === '.md'
          ? renderMarkdownReport(summary)
          : `${JSON.stringify(summary, null, 2)}\n`;
    await writeFile(file, text).catch((error: unknown) => {
      throw new UserError(
        `${file}: cannot write the report (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        { cause: error },
      );
    });
    process.stderr.write(`wrote ${file}\n`);
  }
}
