/**
 * `faultline diff FAILED PASSED`: where a failed run parts from a passing run of the same task
 * (trajectory analysis, src/attribution/diverge/). Text by default; `--json` writes the whole
 * diff (divergence, aligned pairs, counts) as one JSON line.
 */
import type { Command } from 'commander';
import { diffTraces } from '../../attribution/diverge/diff.js';
import { loadTraces, shownAs } from '../../trace/load.js';
import type { Trace } from '../../trace/model.js';
import { UserError } from '../../errors.js';
import { renderDiff } from '../render-diff.js';

/** The one run in `file` (`-`: standard input); a file of several runs is refused. */
export async function loadOneRun(file: string, format: string | undefined): Promise<Trace> {
  const traces = await loadTraces(file, format ? { format } : {});
  if (traces.length !== 1)
    throw new UserError(
      `${shownAs(file)} holds ${traces.length} runs; give a file of one run (faultline inspect lists them)`,
    );
  return traces[0]!;
}

export function registerDiff(program: Command, exit: (code: number) => void): void {
  program
    .command('diff')
    .description('show where a failed run parts from a passing run of the same task')
    .argument('<failed>', 'the failed run (a trace file; - reads it from standard input)')
    .argument('<passed>', 'a passing run of the same task')
    .option('--json', 'the whole diff as one JSON object: divergence, aligned pairs, counts')
    .option('--format <name>', 'read both as this format instead of detecting it')
    .addHelpText(
      'after',
      '\nExamples:\n  faultline diff today.json yesterday.json\n  faultline diff runs/failed.jsonl runs/clean.jsonl --json | jq .divergence\n\nThe first step where the failed run differs in substance (figures, tool calls and their\narguments, code, decisions, a step added or left out) is named; wording alone is no difference.\nThe same comparison names a step as a method: faultline attribute FAILED --method diverge --ref PASSED',
    )
    .action(
      async (
        failedFile: string,
        passedFile: string,
        flags: { json?: boolean; format?: string },
      ) => {
        const failed = await loadOneRun(failedFile, flags.format);
        const passed = await loadOneRun(passedFile, flags.format);
        const diff = diffTraces(failed, passed, {
          failedName: shownAs(failedFile),
          passedName: shownAs(passedFile),
        });
        process.stdout.write(
          flags.json ? `${JSON.stringify(diff)}\n` : `${renderDiff(diff, failed, passed)}\n`,
        );
        exit(0);
      },
    );
}
