/**
 * The shell blocks of a Markdown page and the bash script that runs their commands as the page
 * documents them (test/doc-commands.test.ts). To run a page's commands by hand, from the
 * repository root after `npm install`: `node --import tsx test/doc-script.ts docs/GUIDE.md >
 * guide.sh && bash guide.sh` (in a scratch copy: the commands write files where they run).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** A fenced `sh` block and whether it is to run. */
export interface ShellBlock {
  line: number;
  commands: string[];
  skipped?: string;
}

/** The `sh` blocks of a Markdown page, each command with its continuation lines joined. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```sh') continue;
    const fence = index + 1;
    let previous = index - 1;
    while (previous >= 0 && lines[previous]!.trim() === '') previous--;
    const skipped = /^<!-- not run: (.+?) -->$/.exec(lines[previous] ?? '')?.[1];
    const commands: string[] = [];
    let pending = '';
    for (index++; index < lines.length && lines[index] !== '```'; index++) {
      const text = lines[index]!;
      pending += pending ? `\n${text}` : text;
      if (text.endsWith('\\')) continue;
      if (pending.trim() && !pending.trim().startsWith('#')) commands.push(pending);
      pending = '';
    }
    blocks.push({ line: fence, commands, ...(skipped ? { skipped } : {}) });
  }
  return blocks;
}

/** The exit code a command documents with a trailing `# exits N`, else 0. */
function documentedExit(command: string): number {
  return Number(/#\s*exits (\d+)\s*$/.exec(command)?.[1] ?? 0);
}

/**
 * An `npx` for the tests: `npx faultline …` runs this checkout's source (`cli`, with tsx) in place
 * of the npx process, so that a command started in the background is the process `kill` stops.
 */
export function npxShim(cli: string): string {
  return [
    '#!/usr/bin/env bash',
    `if [ "$1" = faultline ]; then shift; exec node --import tsx ${singleQuoted(cli)} "$@"; fi`,
    'PATH="${PATH#*:}" exec npx "$@"',
    '',
  ].join('\n');
}

/** Text as one single-quoted shell word. */
function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The port a command started in the background listens on, where the page shows it. */
function backgroundPort(command: string): number | undefined {
  const port = /--port[ =](\d+)/.exec(command)?.[1];
  if (port) return Number(port);
  return /faultline proxy\b/.test(command) ? 8600 : undefined;
}

/**
 * A bash script running the commands in order, each checked against its documented exit code; a
 * command started in the background (`&`) is waited for until its port answers, and whatever is
 * still running in the background when the script ends is stopped.
 */
export function script(commands: readonly string[]): string {
  const checks = commands.map((command, index) => {
    const expected = documentedExit(command);
    const port = /&\s*(#.*)?$/.test(command) ? backgroundPort(command) : undefined;
    return [
      `{ ${command}\n}`,
      `code=$?`,
      `if [ "$code" -ne ${expected} ]; then echo "command ${index + 1} exited $code, the page says ${expected}:" ${singleQuoted(command.split('\n')[0]!)} >&2; exit 90; fi`,
      ...(port === undefined ? [] : [`wait_for_port ${port} || exit 91`]),
    ].join('\n');
  });
  return [
    'set -o pipefail',
    'wait_for_port() { for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing answers on port $1" >&2; return 1; }',
    "trap 'jobs -p | xargs -r kill 2>/dev/null' EXIT",
    ...checks,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const page = process.argv[2];
  if (!page) throw new Error('usage: node --import tsx test/doc-script.ts PAGE.md');
  const blocks = shellBlocks(readFileSync(page, 'utf8')).filter((block) => !block.skipped);
  process.stdout.write(`${script(blocks.flatMap((block) => block.commands))}\n`);
}
