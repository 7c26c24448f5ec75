/**
 * `faultline attribute <trace or folder>...`: the main job. Human-readable by default; with
 * `--json`, one JSON object per trace per line: {trace, agent, step, reason, method, ...}.
 */
import type { Command } from 'commander';
import { getMethod, DEFAULT_METHOD, listMethods } from '../../attribution/registry.js';
import { forEachTrace, finishBatch } from '../batch.js';
import { renderAttribution } from '../render.js';

interface AttributeFlags {
  method: string;
  modelFile?: string;
  groundTruth: boolean;
  json?: boolean;
  format?: string;
}

export function registerAttribute(program: Command, exit: (code: number) => void): void {
  program
    .command('attribute')
    .description('name the agent and step that caused each failed run')
    .argument('<traces...>', 'trace files or folders (searched recursively)')
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
    .option('--format <name>', 'read as this format instead of detecting it')
    .addHelpText(
      'after',
      '\nExamples:\n  faultline attribute examples/who-and-when-ag-1.json\n  faultline attribute ../runs/ --json > blame.jsonl\n  faultline attribute trace.json --method first-agent --no-ground-truth',
    )
    .action(async (paths: string[], flags: AttributeFlags) => {
      const method = getMethod(flags.method, flags.modelFile ? { modelPath: flags.modelFile } : {});
      let first = true;
      const outcome = await forEachTrace(
        paths,
        flags.format ? { format: flags.format } : {},
        async (trace, file) => {
          const result = await method.attribute(trace, { useGroundTruth: flags.groundTruth });
          if (flags.json) {
            process.stdout.write(`${JSON.stringify({ trace: file, id: trace.id, ...result })}\n`);
          } else {
            const label =
              trace.id !== file && !file.includes(trace.id) ? `${file} (${trace.id})` : file;
            process.stdout.write(
              `${first ? '' : '\n'}${renderAttribution(label, trace, result)}\n`,
            );
            first = false;
          }
        },
      );
      exit(finishBatch(outcome));
    });
}
