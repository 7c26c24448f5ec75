/**
 * `faultline attribute <trace or folder>...`: the main job. Human-readable by default; with
 * `--json`, one JSON object per trace per line: {trace, agent, step, reason, method, ...}.
 * Traces run `--concurrency` at a time; output keeps the input order.
 */
import type { Command } from 'commander';
import pLimit from 'p-limit';
import { DEFAULT_METHOD, getMethod, listMethods } from '../../attribution/registry.js';
import type { Attribution } from '../../attribution/method.js';
import { withMinimumConfidence } from '../../attribution/min-confidence.js';
import { ProviderError, UserError } from '../../errors.js';
import { isLlmMethod, type LlmOptions } from '../../attribution/llm/catalog.js';
import { NEEDS_REFERENCE } from '../../attribution/diverge/method.js';
import type { Trace } from '../../trace/model.js';
import { forEachTrace, finishBatch } from '../batch.js';
import { EXIT, reportError } from '../errors.js';
import { share, wholeNumber } from '../flag-values.js';
import { addLlmOptions, llmOptionsOf, type LlmFlags } from '../llm-options.js';
import { renderAttribution, renderBatchSummary } from '../render.js';
import { loadOneRun } from './diff.js';
import { COMBINED } from '../../attribution/spectrum/combined.js';
import { NEEDS_RUNS } from '../../attribution/spectrum/method.js';
import { readTaskRuns, siblingsInBatch, storedTaskRuns, withPathOutcome } from '../task-runs.js';

interface AttributeFlags extends LlmFlags {
  method: string;
  modelFile?: string;
  groundTruth: boolean;
  json?: boolean;
  allModes?: boolean;
  minConfidence?: string;
  format?: string;
  concurrency: string;
  ref?: string;
  runs?: string;
  task?: string;
}

/** Registers `faultline attribute`. */
export function registerAttribute(program: Command, exit: (code: number) => void): void {
  const command = program
    .command('attribute')
    .description('name the agent and step that caused each failed run')
    .argument(
      '<traces...>',
      'trace files or folders (searched recursively); - reads one from standard input',
    )
    .option(
      '-m, --method <name>',
      `attribution method: ${listMethods()
        .map((method) => method.name)
        .join(', ')}`,
      DEFAULT_METHOD,
    )
    .option('--model-file <path>', 'offline model file (default: the shipped model)')
    .option('--no-ground-truth', "ignore the task's expected answer even when the trace has one")
    .option('--json', 'one JSON object per trace per line')
    .option(
      '--all-modes',
      'list every failure mode found (default: at most three per run and per agent, those the model names better than a constant answer, most raised above their usual rate first; --json always keeps every mode with a shown flag)',
    )
    .option(
      '--min-confidence <x>',
      'below this agent confidence (0-1) answer "no confident attribution" (agent and step null, candidates kept); methods that state no confidence are unaffected',
    )
    .option('--format <name>', 'read as this format instead of detecting it')
    .option('--concurrency <n>', 'traces attributed at once (LLM methods)', '4');
  addRunOptions(command);
  addLlmOptions(command)
    .addHelpText(
      'after',
      '\nExamples:\n  faultline attribute examples/who-and-when-ag-58.json\n  faultline attribute ../runs/ --json > blame.jsonl\n  faultline attribute failed.json --method diverge --ref passed.json\n  curl -s $TRACE_URL | faultline attribute -\n  faultline attribute run.json --method all-at-once --model openai:gpt-4o\n  faultline attribute run.json --method binary-search --model openai-compatible:qwen2.5 --base-url http://127.0.0.1:8000/v1',
    )
    .action(async (paths: string[], flags: AttributeFlags, command: Command) => {
      // With the default method, a run whose task has other runs in the batch, one of them
      // passing, is attributed by the combined verdict over them.
      const fromBatch =
        isDefault(flags, command) && flags.runs === undefined && flags.task === undefined;
      defaultToCombined(flags, command);
      const concurrency = wholeNumber(flags.concurrency, '--concurrency', 1);
      const llm = llmOptionsOf(flags);
      checkFlags(flags, llm);
      const reference =
        flags.ref === undefined ? undefined : await loadOneRun(flags.ref, flags.format);
      const runs = await siblingRuns(flags);
      const minConfidence =
        flags.minConfidence === undefined
          ? undefined
          : share(flags.minConfidence, '--min-confidence');
      const method = getMethod(flags.method, { ...modelOf(flags), llm });
      const limit = pLimit(concurrency);
      const results: Slot[] = [];
      const printer = inOrderPrinter(results, flags);
      const read: { trace: Trace; file: string }[] = [];
      const outcome = await forEachTrace(
        paths,
        flags.format ? { format: flags.format } : {},
        (trace, file) => void read.push({ trace: withPathOutcome(trace, file), file }),
      );
      const batch = fromBatch ? siblingsInBatch(read.map(({ trace }) => trace)) : new Map();
      if (batch.size > 0) noteBatchSiblings(batch);
      const combined = batch.size > 0 ? getMethod(COMBINED, modelOf(flags)) : undefined;
      await Promise.all(
        read.map(({ trace, file }, slot) => {
          results.push(undefined);
          const siblings: Trace[] | undefined = batch.get(trace);
          return limit(async () => {
            try {
              const options = {
                useGroundTruth: flags.groundTruth,
                ...(llm.maxCalls ? { maxCalls: llm.maxCalls } : {}),
                ...(reference ? { reference } : {}),
              };
              const result = siblings
                ? await combined!.attribute(trace, { ...options, runs: siblings })
                : await method.attribute(trace, { ...options, ...(runs ? { runs } : {}) });
              results[slot] = { trace, file, result: withMinimumConfidence(result, minConfidence) };
            } catch (error) {
              if (!(error instanceof ProviderError)) throw error;
              results[slot] = { trace, file, error };
            }
            printer.flush();
          });
        }),
      );
      const summary = flags.json
        ? undefined
        : renderBatchSummary(results.flatMap((entry) => (entry?.result ? [entry.result] : [])));
      if (summary) process.stdout.write(`\n${summary}\n`);
      exit(Math.max(finishBatch(outcome), printer.failures() > 0 ? EXIT.provider : EXIT.ok));
    });
}

/** The options that give other runs to compare with: a passing one, or those of the task. */
function addRunOptions(command: Command): Command {
  return command
    .option(
      '--ref <passed>',
      'a passing run of the same task, for --method diverge (the first step where each run departs from it)',
    )
    .option(
      '--runs <folder>',
      'other runs of the same task, passing and failing (a folder or file): the verdict combines the offline model, their spectrum and where the run parts from a passing one (--method combined, the default with --runs; or spectrum)',
    )
    .option(
      '--task <id>',
      'the other runs of this task: among --runs, or without --runs the runs of the task in the store (recorded by the proxy, rerun or OTLP; the page lists tasks)',
    );
}

const isDefault = (flags: AttributeFlags, command: Command) =>
  command.getOptionValueSource('method') === 'default' && flags.ref === undefined;

const modelOf = (flags: AttributeFlags) => (flags.modelFile ? { modelPath: flags.modelFile } : {});

/** With other runs of the task (--runs, --task), the default verdict is the one that weighs them. */
function defaultToCombined(flags: AttributeFlags, command: Command): void {
  if ((flags.runs !== undefined || flags.task !== undefined) && isDefault(flags, command))
    flags.method = COMBINED;
}

/** Says on standard error which runs the batch's other runs of their task speak for. */
function noteBatchSiblings(batch: ReadonlyMap<Trace, Trace[]>): void {
  const tasks = new Set(batch.values()).size;
  const one = batch.size === 1;
  process.stderr.write(
    `faultline: ${batch.size} run${one ? '' : 's'} that did not pass (${tasks} task${tasks === 1 ? '' : 's'}) ${one ? 'has' : 'have'} other runs of ${one ? 'its' : 'their'} task in this batch, at least one passing: ${one ? 'its verdict combines' : 'their verdicts combine'} the offline model with the spectrum of those runs (--method offline for the model alone)\n`,
  );
}

/** The other runs of the task that --runs names (all of them taken as one task's runs). */
async function siblingRuns(flags: AttributeFlags): Promise<Trace[] | undefined> {
  if (flags.runs === undefined)
    return flags.task === undefined ? undefined : (await storedTaskRuns(flags.task)).runs;
  const read = await readTaskRuns([flags.runs], {
    ...(flags.task === undefined ? { oneTask: true } : { task: flags.task }),
    ...(flags.format ? { format: flags.format } : {}),
  });
  return read.runs;
}

/** --model and --prompts need an LLM method, --ref a method that compares with a passing run. */
function checkFlags(flags: AttributeFlags, llm: LlmOptions): void {
  if (flags.model && !isLlmMethod(flags.method))
    throw new UserError(
      `--model names the model of an LLM method, and --method ${flags.method} uses none; add --method all-at-once (or step-by-step, binary-search, hybrid), or drop --model`,
    );
  if (llm.prompts === 'paper' && !isLlmMethod(flags.method))
    throw new UserError(
      `--prompts paper gives an LLM method the Who&When paper's prompts, and --method ${flags.method} sends none; add --method all-at-once (or step-by-step, binary-search), or drop --prompts`,
    );
  const needsReference = listMethods().some(
    (method) => method.name === flags.method && method.needsReference,
  );
  if (needsReference && flags.ref === undefined) throw new UserError(NEEDS_REFERENCE);
  const needsRuns = listMethods().some(
    (method) => method.name === flags.method && method.needsRuns,
  );
  const runsGiven = flags.runs !== undefined || flags.task !== undefined;
  if (needsRuns && !runsGiven) throw new UserError(NEEDS_RUNS);
  if (!needsRuns && runsGiven)
    throw new UserError(
      `--runs and --task give the other runs of the task that --method combined and spectrum compare with, and --method ${flags.method} compares with none; drop --method, or drop ${flags.runs !== undefined ? '--runs' : '--task'}`,
    );
  if (!needsReference && flags.ref !== undefined)
    throw new UserError(
      `--ref names the passing run that --method diverge compares with, and --method ${flags.method} compares with none; add --method diverge, or drop --ref`,
    );
}

/** Prints one trace's result: a JSON line, or the readable verdict (a blank line between). */
function printResult(
  trace: Trace,
  file: string,
  result: Attribution,
  first: boolean,
  flags: AttributeFlags,
): void {
  if (flags.json) {
    // What the log records of the run's outcome, where it records one.
    const recorded = trace.outcome === 'unknown' ? {} : { outcome: trace.outcome };
    process.stdout.write(
      `${JSON.stringify({ trace: file, id: trace.id, ...recorded, ...result })}\n`,
    );
  } else {
    const label = !file.includes(trace.id) ? `${file} (${trace.id})` : file;
    process.stdout.write(
      `${first ? '' : '\n'}${renderAttribution(label, trace, result, { allModes: flags.allModes === true })}\n`,
    );
  }
}

/** A trace's place in the output: empty until attributed, then its result or provider error. */
type Slot = { trace: Trace; file: string; result?: Attribution; error?: unknown } | undefined;

/** Prints results in input order as they become ready; counts the provider failures. */
function inOrderPrinter(results: Slot[], flags: AttributeFlags) {
  let printed = 0;
  let providerFailures = 0;
  return {
    flush: () => {
      while (results[printed] !== undefined) {
        const { trace, file, result, error } = results[printed]!;
        if (error !== undefined) {
          providerFailures += 1;
          reportError(
            error instanceof ProviderError
              ? new ProviderError(`${file}: ${error.message}`, { cause: error })
              : error,
          );
        } else printResult(trace, file, result!, printed === 0, flags);
        printed += 1;
      }
    },
    failures: () => providerFailures,
  };
}
