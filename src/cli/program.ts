/**
 * The `faultline` command tree, built without parsing anything: the entry point (`index.ts`) parses
 * the process's arguments with it, and `scripts/cli-reference.ts` writes docs/CLI.md from it, so a
 * flag is described in one place only (its command's definition).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { setDebug } from './errors.js';
import { registerAttribute } from './commands/attribute.js';
import { registerConvert } from './commands/convert.js';
import { registerDiff } from './commands/diff.js';
import { registerEval } from './commands/eval.js';
import { registerAdapt } from './commands/adapt.js';
import { registerInject } from './commands/inject.js';
import { registerInspect } from './commands/inspect.js';
import { registerOutcome } from './commands/outcome.js';
import { registerProxy } from './commands/proxy.js';
import { registerReplay } from './commands/replay.js';
import { registerRerun } from './commands/rerun.js';
import { registerServer } from './commands/server.js';
import { registerSpectrum } from './commands/spectrum.js';
import { registerTrain } from './commands/train.js';
import { registerVerify } from './commands/verify.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** Every command of `faultline`; `setExit` raises the process's exit code (the highest wins). */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('faultline')
    .description('Find which agent caused a multi-agent LLM run to fail, and at which step.')
    .version(packageJson.version)
    .option('--debug', 'print stack traces with errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .hook('preAction', (command) => setDebug(Boolean(command.optsWithGlobals().debug)))
    .addHelpText(
      'after',
      '\nExamples:\n  faultline attribute examples/who-and-when-ag-58.json\n  faultline inspect examples/who-and-when-hc-6.json\n  faultline attribute ../shared/datasets/who-and-when --json',
    );

  registerAttribute(program, setExit);
  registerInspect(program, setExit);
  registerDiff(program, setExit);
  registerSpectrum(program, setExit);
  registerConvert(program, setExit);
  registerTrain(program, setExit);
  registerEval(program, setExit);
  registerServer(program, setExit);
  registerProxy(program, setExit);
  registerOutcome(program, setExit);
  registerReplay(program, setExit);
  registerVerify(program, setExit);
  registerRerun(program, setExit);
  registerInject(program, setExit);
  registerAdapt(program, setExit);
  return program;
}
