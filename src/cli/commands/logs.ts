/** `faultline logs [-f] [-n N]`: the server log's last lines, and with -f the ones that follow. */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, watch } from 'node:fs';
import type { Command } from 'commander';
import { faultlineHome } from '../../config.js';
import { logFile } from '../../server/state.js';

/** Registers `faultline logs`. */
export function registerLogs(program: Command, exit: (code: number) => void): void {
  program
    .command('logs')
    .description('print the server log')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .option('-n, --lines <n>', 'how many last lines to print first', '50')
    .addHelpText('after', '\nExamples:\n  faultline logs\n  faultline logs -f -n 10')
    .action(async (flags: { follow?: boolean; lines: string }) => {
      const file = logFile(faultlineHome());
      if (!existsSync(file)) {
        process.stdout.write(`no log yet (${file}); start the server with \`faultline launch\`\n`);
        exit(0);
        return;
      }
      const count = Math.max(0, Number(flags.lines) || 0);
      const text = readFileSync(file, 'utf8');
      const lines = text
        .split('\n')
        .filter((line, index, all) => line.length > 0 || index < all.length - 1);
      process.stdout.write(
        lines
          .slice(-count)
          .map((line) => `${line}\n`)
          .join(''),
      );
      if (flags.follow) await follow(file, Buffer.byteLength(text));
      exit(0);
    });
}

/** Prints what is appended to the file after `offset` until SIGINT. */
async function follow(file: string, offset: number): Promise<void> {
  const printNew = () => {
    const size = statSync(file).size;
    if (size < offset) offset = 0; // truncated or replaced
    if (size === offset) return;
    const descriptor = openSync(file, 'r');
    const buffer = Buffer.alloc(size - offset);
    try {
      readSync(descriptor, buffer, 0, buffer.length, offset);
    } finally {
      closeSync(descriptor);
    }
    offset = size;
    process.stdout.write(buffer);
  };
  const watcher = watch(file, printNew);
  const timer = setInterval(printNew, 1000); // also catches changes watch() misses
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => {
      watcher.close();
      clearInterval(timer);
      resolve();
    });
  });
}
