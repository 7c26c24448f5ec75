#!/usr/bin/env node
/**
 * The `faultline` command. This file only wires commands together; each lives in commands/.
 */
import { CommanderError } from 'commander';
import { EXIT, exitCodeOf, reportError } from './errors.js';
import { buildProgram } from './program.js';

let exitCode: number = EXIT.ok;
const setExit = (code: number) => {
  exitCode = Math.max(exitCode, code);
};

const program = buildProgram(setExit);

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
