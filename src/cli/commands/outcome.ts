/**
 * `faultline outcome RUN failed|passed`: say how a recorded run ended. A failed run is attributed
 * at once (the combined verdict where the store holds a passing run of its task, else the offline
 * method), and the verdict is printed and stored for the page.
 */
import type { Command } from 'commander';
import { databaseLocation } from '../../config.js';
import { renderAttribution } from '../render.js';

interface OutcomeFlags {
  attribute: boolean;
  json?: boolean;
}

export function registerOutcome(program: Command, exit: (code: number) => void): void {
  program
    .command('outcome')
    .description('mark a recorded run failed or passed (a failed one is attributed at once)')
    .argument('<run>', 'the run id (as in x-faultline-run, or the file name under the runs folder)')
    .argument('<outcome>', 'failed or passed (or unknown)')
    .option('--no-attribute', 'do not attribute a failed run')
    .option('--json', 'print the run and the verdict as one JSON object')
    .addHelpText(
      'after',
      '\nExamples:\n  faultline outcome run-20260102-030405-1a2b failed\n  faultline outcome my-run passed --json\n\nThe page does the same with POST /api/runs/<run>/outcome {"outcome": "failed"}.',
    )
    .action(async (runId: string, word: string, flags: OutcomeFlags) => {
      const [{ openDatabase }, { Repository }, { RunStore }, { markOutcome, outcomeOf }] =
        await Promise.all([
          import('../../store/database.js'),
          import('../../store/repository.js'),
          import('../../store/runs.js'),
          import('../../recording/replay/outcome.js'),
        ]);
      const outcome = outcomeOf(word);
      const db = await openDatabase(databaseLocation());
      try {
        const repository = new Repository(db);
        const runs = new RunStore(db);
        const marked = await markOutcome(runs, repository, runId.replace(/\.json$/, ''), outcome, {
          attribute: flags.attribute,
        });
        if (flags.json)
          process.stdout.write(
            `${JSON.stringify({ run: marked.run, analysis: marked.analysis?.result ?? null })}\n`,
          );
        else {
          process.stdout.write(`${marked.run.runId}: ${marked.run.outcome}\n`);
          if (marked.analysis) {
            const trace = (await repository.getTrace(marked.run.traceId))!;
            process.stdout.write(
              `\n${renderAttribution(marked.run.runId, trace, marked.analysis.result)}\n`,
            );
          }
        }
      } finally {
        await db.close();
      }
      exit(0);
    });
}
