#!/usr/bin/env node
/**
 * The `faultline` command. This file only wires commands together; each lives in commands/.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT, exitCodeOf, reportError, setDebug } from './errors.js';
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
import { registerServer } from './commands/server.js';
import { registerTrain } from './commands/train.js';
import { registerVerify } from './commands/verify.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

let exitCode: number = EXIT.ok;
const setExit = (code: number) => {
  exitCode = Math.max(exitCode, code);
};

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
registerConvert(program, setExit);
registerTrain(program, setExit);
registerEval(program, setExit);
registerServer(program, setExit);
registerProxy(program, setExit);
registerOutcome(program, setExit);
registerReplay(program, setExit);
registerVerify(program, setExit);
registerInject(program, setExit);
registerAdapt(program, setExit);

// A closed pipe (`faultline ... | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(exitCode);
  throw error;
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; usage mistakes are bad input.
    setExit(error.exitCode === 0 ? EXIT.ok : EXIT.badInput);
  } else {
    reportError(error);
    setExit(exitCodeOf(error));
  }
}
process.exitCode = exitCode;
