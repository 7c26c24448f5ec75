/** `faultline inspect <trace>`: the normalised steps as a table, or the canonical JSON. */
import type { Command } from 'commander';
import { forEachTrace, finishBatch } from '../batch.js';

export function registerInspect(program: Command, exit: (code: number) => void): void {
  program
    .command('inspect')
    .description('show how faultline reads a trace: steps, agents and labels')
    .argument('<traces...>', 'trace files or folders; - reads one from standard input')
    .option('--json', 'print the canonical trace as JSON (one document per trace)')
    .option('--format <name>', 'read as this format instead of detecting it')
    .addHelpText(
      'after',
      '\nExamples:\n  faultline inspect examples/who-and-when-ag-58.json\n  faultline inspect run.jsonl --format magentic-one --json | jq .agents',
    )
    .action(async (paths: string[], options: { json?: boolean; format?: string }) => {
      // The table library is loaded only when a table is drawn.
      const renderTrace = options.json
        ? undefined
        : (await import('../render-trace.js')).renderTrace;
      let first = true;
      const outcome = await forEachTrace(
        paths,
        options.format ? { format: options.format } : {},
        (trace) => {
          if (!renderTrace) process.stdout.write(`${JSON.stringify(trace, null, 2)}\n`);
          else {
            process.stdout.write(`${first ? '' : '\n'}${renderTrace(trace)}\n`);
            first = false;
          }
        },
      );
      exit(finishBatch(outcome));
    });
}
