/**
 * `faultline replay TRACE --step N (--fix TEXT | --fix-model provider:model) --run CMD --check CMD
 * --upstream URL`: counterfactual replay of a recorded run with one step fixed. Prints one JSON
 * object: {"step", "agent", "flipped", "run", ...}.
 */
import type { Command } from 'commander';
import { UserError } from '../../errors.js';
import { wholeNumber } from '../flag-values.js';
import {
  addReplayOptions,
  progress,
  recordedTrace,
  replaySetUp,
  type ReplayFlags,
} from '../replay-options.js';

interface ReplayCommandFlags extends ReplayFlags {
  step: string;
  fix?: string;
  reason?: string;
}

export function registerReplay(program: Command, exit: (code: number) => void): void {
  const command = program
    .command('replay')
    .description('re-run a recorded run with one step fixed, and say whether the outcome flipped')
    .argument('<trace>', 'a run recorded by `faultline proxy` (its file, or its run id)')
    .requiredOption('--step <n>', 'the step to fix (one of the run’s model calls)')
    .option(
      '--fix <text>',
      'what the step says instead (for a step that calls tools: {"content": "...", "toolCalls": [{"name": "...", "arguments": "{...}"}]})',
    )
    .option(
      '--reason <text>',
      'why the step is wrong, for the model that writes the fix (default: the offline verdict’s reason)',
    );
  addReplayOptions(command)
    .addHelpText(
      'after',
      `
Calls before the step are answered from the recording (each agent's calls in order), the step with
the fix, later calls by the upstream. The run must make the same calls again: temperature 0 or a seed.

Examples:
  faultline replay runs/team-1.json --step 1 --fix '{"toolCalls": [{"name": "run_code", "arguments": "{\\"code\\": \\"17 * 23 + 5\\"}"}]}' \\
    --run 'node --import tsx examples/agent-team/team.ts --out answer.json' \\
    --check 'node --import tsx examples/agent-team/check.ts --answer answer.json' --upstream http://127.0.0.1:8700/v1
  faultline replay team-1 --step 4 --fix-model openai:gpt-4o --run ./run.sh --check ./check.sh --upstream https://api.openai.com/v1`,
    )
    .action(async (path: string, flags: ReplayCommandFlags) => {
      const step = wholeNumber(flags.step, '--step', 0);
      if (flags.fix !== undefined && flags.fixModel)
        throw new UserError(
          'give either --fix (the fix itself) or --fix-model (a model writes it), not both',
        );
      if (flags.fix === undefined && !flags.fixModel)
        throw new UserError(
          'say what the step should be: --fix TEXT, or --fix-model provider:model to have a model write it',
        );
      const log = progress('replay');
      const setUp = await replaySetUp(flags, log);
      try {
        const [{ replay, replayableRecording, replayTarget }, { parseFix, writeFix, describeFix }] =
          await Promise.all([
            import('../../recording/replay/replay.js'),
            import('../../recording/replay/fix.js'),
          ]);
        const trace = await recordedTrace(path, setUp.database?.runs);
        replayTarget(replayableRecording(trace, path), step, path);
        let fix;
        if (flags.fix !== undefined) fix = parseFix(flags.fix);
        else {
          let reason = flags.reason;
          if (!reason) {
            const { getMethod } = await import('../../attribution/registry.js');
            const verdict = await getMethod('offline').attribute(trace);
            reason =
              verdict.step === step
                ? verdict.reason
                : `the user suspects this step (the offline verdict names step ${verdict.step ?? 'none'}: ${verdict.reason})`;
          }
          fix = await writeFix(await setUp.fixWriter(), trace, step, reason);
          log(`fix for step ${step}: ${describeFix(fix)}`);
        }
        const result = await replay({ ...setUp.settings, trace, step, fix });
        process.stdout.write(`${JSON.stringify(result)}\n`);
      } finally {
        await setUp.close();
      }
      exit(0);
    });
}
