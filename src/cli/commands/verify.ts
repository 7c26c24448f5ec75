/**
 * `faultline verify TRACE --run CMD --check CMD --upstream URL --fix-model provider:model`: prove
 * the attribution by counterfactual replay. The offline verdict's top `--top` candidate steps are
 * replayed in its order, each with a fix the model writes, then on down the ranking while the
 * budget lasts, until one flips the outcome; then the model calls before it, and the earliest that
 * flips is the decisive step; `--budget` replays in all. The verified step is marked in the output and on the page, and with `--label` stored as the
 * trace's label (so verified runs feed `train --base`).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { performance } from 'node:perf_hooks';
import type { Attribution } from '../../attribution/method.js';
import type { Verification } from '../../recording/replay/verify.js';
import type { UserLabel } from '../../store/records.js';
import type { Trace } from '../../trace/model.js';
import { wholeNumber } from '../flag-values.js';
import {
  addReplayOptions,
  progress,
  recordedTrace,
  replaySetUp,
  type ReplayFlags,
  type ReplaySetUp,
} from '../replay-options.js';
import { escapeControls } from '../terminal-text.js';

interface VerifyFlags extends ReplayFlags {
  top: string;
  budget?: string;
  label?: boolean;
  json?: boolean;
}

/** Writes the verified step into the trace file as its label. */
function labelFile(file: string, label: UserLabel): void {
  const document = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  document.labels = { ...(document.labels as object | undefined), ...label };
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`);
  renameSync(temporary, file);
}

/** Registers `faultline verify`. */
export function registerVerify(program: Command, exit: (code: number) => void): void {
  const command = program
    .command('verify')
    .description(
      'prove which step was decisive: replay the candidates until a fix flips the outcome',
    )
    .argument('<trace>', 'a failed run recorded by `faultline proxy` (its file, or its run id)')
    .option('--top <k>', 'candidate steps to consider first, best first', '3')
    .option(
      '--budget <n>',
      'most replays: the candidates, on down the ranking while none flips, then the steps before the one that flips (default: twice --top)',
    )
    .option('--label', "store the verified step as the trace's label (in the file and on the page)")
    .option('--json', 'print one JSON object');
  addReplayOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  faultline verify runs/team-1.json --fix-model openai:gpt-4o --upstream https://api.openai.com/v1 \\
    --run 'python team.py' --check 'python check.py' --top 3 --label
  faultline verify team-1 --fix-model openai-compatible:qwen2.5 --fix-base-url http://127.0.0.1:8000/v1 \\
    --upstream http://127.0.0.1:8000/v1 --run ./run.sh --check ./check.sh --json`,
    )
    .action(async (path: string, flags: VerifyFlags) => {
      const top = wholeNumber(flags.top, '--top', 1);
      const budget =
        flags.budget === undefined ? 2 * top : wholeNumber(flags.budget, '--budget', 1);
      const log = progress('verify');
      const setUp = await replaySetUp(flags, log);
      try {
        const [{ verify }, summary, { getMethod }] = await Promise.all([
          import('../../recording/replay/verify.js'),
          import('../../recording/replay/verify-summary.js'),
          import('../../attribution/registry.js'),
        ]);
        const trace: Trace = await recordedTrace(path, setUp.database?.runs);
        const started = performance.now();
        const attribution = await getMethod('offline').attribute(trace);
        const fixWriter = await setUp.fixWriter();
        const found = await verify({
          ...setUp.settings,
          trace,
          attribution,
          fixWriter,
          top,
          budget,
        });
        const verified = found.verified;
        const result = verifiedAttribution(attribution, found, summary.describeEarlier);
        await storeOnPage(
          setUp,
          trace,
          result,
          found,
          { top, budget, label: flags.label === true },
          started,
        );
        const file = trace.source ?? (await setUp.database?.runs.get(trace.id))?.file ?? undefined;
        if (verified && flags.label && file && file !== '-') labelFile(file, proofLabel(verified));
        printVerification(path, trace, result, found, summary, flags);
      } finally {
        await setUp.close();
      }
      exit(0);
    });
}

/** The label `--label` stores: the verified step, with its proof (read by the combined verdict). */
function proofLabel(verified: NonNullable<Verification['verified']>): UserLabel {
  return {
    agent: verified.agent,
    step: verified.step,
    reason: `verified by counterfactual replay (${verified.run})`,
    proof: { run: verified.run, replays: verified.replays },
  };
}

/** The offline verdict, or with a step verified the verdict naming it and saying so. */
function verifiedAttribution(
  attribution: Attribution,
  found: Verification,
  describeEarlier: (earlier: NonNullable<Verification['earlier']>) => string,
): Attribution {
  const verified = found.verified;
  return verified
    ? {
        ...attribution,
        agent: verified.agent,
        step: verified.step,
        reason: `Verified by counterfactual replay: with step ${verified.step} (${verified.agent}) fixed, the run passed its check (${verified.replays} replays, ${found.candidates} candidates${found.earlier ? `; ${describeEarlier(found.earlier)}` : ''}). ${attribution.step === verified.step ? attribution.reason : `The offline verdict had named step ${attribution.step ?? 'none'}.`}`,
        verified: {
          step: verified.step,
          agent: verified.agent,
          replays: verified.replays,
          run: verified.run,
          earlierAllTried: verified.earlierAllTried,
          ...(found.earlier?.untried.length ? { earlierUntried: found.earlier.untried } : {}),
        },
      }
    : attribution;
}

/** On the page: the verdict, marked verified, beside the trace; with --label, its label. */
async function storeOnPage(
  setUp: ReplaySetUp,
  trace: Trace,
  result: Attribution,
  found: Verification,
  settings: { top: number; budget: number; label: boolean },
  started: number,
): Promise<void> {
  const { top, budget } = settings;
  const verified = found.verified;
  if (setUp.database) {
    const { runs, repository } = setUp.database;
    const traceId =
      (await runs.get(trace.id))?.traceId ??
      (await repository.saveTrace(trace, trace.source ?? trace.id)).id;
    await repository.saveAnalysis(
      traceId,
      { method: 'offline', verify: { top, budget, replays: found.replays } },
      result,
      performance.now() - started,
    );
    if (verified && settings.label) await repository.setUserLabel(traceId, proofLabel(verified));
  }
}

/** The outcome as one JSON object (--json) or as lines, one per candidate tried. */
function printVerification(
  path: string,
  trace: Trace,
  result: Attribution,
  found: Verification,
  words: typeof import('../../recording/replay/verify-summary.js'),
  flags: VerifyFlags,
): void {
  const verified = found.verified;
  const summary = words.describeVerification(found);
  if (flags.json)
    process.stdout.write(
      `${JSON.stringify({
        trace: path,
        id: trace.id,
        ...result,
        verified: verified ?? null,
        replays: found.replays,
        candidatesTried: found.attempts,
        ...(found.earlier ? { earlier: found.earlier } : {}),
        summary,
      })}\n`,
    );
  else {
    const lines = [`${path} (${trace.id})`, `  ${summary}`];
    for (const attempt of found.attempts) lines.push(`  ${words.describeAttempt(attempt)}`);
    if (verified && flags.label) lines.push(`  stored as the trace's label`);
    process.stdout.write(`${escapeControls(lines.join('\n'))}\n`);
  }
}
