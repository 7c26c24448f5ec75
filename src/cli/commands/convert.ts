/** `faultline convert <trace> --to messages|canonical`: write a trace in a canonical form. */
import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { UserError } from '../../errors.js';
import { toMessagesDocument } from '../../trace/export.js';
import { loadTraces } from '../../trace/load.js';

export function registerConvert(program: Command, exit: (code: number) => void): void {
  program
    .command('convert')
    .description("write a trace as canonical JSON or as the original tool's message JSON")
    .argument('<trace>', 'trace file; - reads it from standard input')
    .addOption(
      new Option('--to <form>', 'output form')
        .choices(['messages', 'canonical'])
        .default('messages'),
    )
    .option('-o, --out <file>', 'write to a file instead of standard output')
    .option('--format <name>', 'read as this format instead of detecting it')
    .addHelpText(
      'after',
      '\nExamples:\n  faultline convert otel-export.json --to messages -o run.json\n  faultline convert logs.db --to canonical',
    )
    .action(
      async (
        path: string,
        options: { to: 'messages' | 'canonical'; out?: string; format?: string },
      ) => {
        const traces = await loadTraces(path, options.format ? { format: options.format } : {});
        const documents = traces.map((trace) =>
          options.to === 'canonical' ? trace : toMessagesDocument(trace),
        );
        const text = `${JSON.stringify(documents.length === 1 ? documents[0] : documents, null, 2)}\n`;
        if (options.out) {
          await writeFile(options.out, text).catch((error: unknown) => {
            throw new UserError(
              `${options.out}: cannot write (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
              { cause: error },
            );
          });
          process.stderr.write(`wrote ${options.out}\n`);
        } else process.stdout.write(text);
        exit(0);
      },
    );
}
