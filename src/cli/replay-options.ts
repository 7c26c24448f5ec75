/**
 * The options `replay` and `verify` share: the commands that run and check the system, where calls
 * go, where replayed runs are written, and the model that writes fixes. Also how a recorded run is
 * found: a trace file, or a run id the page's database knows.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { databaseLocation } from '../config.js';
import { UserError } from '../errors.js';
import type { ModelClient } from '../llm/client.js';
import type { Repository } from '../store/repository.js';
import type { RunStore } from '../store/runs.js';
import type { Trace } from '../trace/model.js';
import { defaultRunsFolder } from './commands/proxy.js';
import { wholeNumber } from './flag-values.js';

/** The shared flags as commander parses them. */
export interface ReplayFlags {
  run: string;
  check: string;
  upstream: string;
  anthropicUpstream?: string;
  fixModel?: string;
  fixBaseUrl?: string;
  out?: string;
  timeout: string;
  lenient?: boolean;
  store: boolean;
}

/** Adds the shared flags. */
export function addReplayOptions(command: Command): Command {
  return command
    .requiredOption(
      '--run <command>',
      'shell command that runs the system (it gets OPENAI_BASE_URL and ANTHROPIC_BASE_URL)',
    )
    .requiredOption(
      '--check <command>',
      'shell command whose exit status says whether the run succeeded (0: it did)',
    )
    .requiredOption(
      '--upstream <url>',
      'where calls after the fixed step go, as for `faultline proxy`',
    )
    .option('--anthropic-upstream <url>', 'where Anthropic Messages calls go (default: --upstream)')
    .option(
      '--fix-model <provider:model>',
      'model that writes fixes, e.g. openai:gpt-4o (its key from the environment)',
    )
    .option(
      '--fix-base-url <url>',
      "the fix model's endpoint (openai-compatible servers, a local model)",
    )
    .option(
      '--out <dir>',
      'folder the replayed runs are written to (default: $FAULTLINE_HOME/runs)',
    )
    .option('--timeout <seconds>', 'longest the run command, and then the check, may take', '600')
    .option(
      '--lenient',
      'match calls to the recording by order alone, and agents named by a fingerprint by their role (prompts with times or random ids)',
    )
    .option('--no-store', 'do not store the replayed runs in the database the page reads');
}

/** What the flags set up: replay settings, the database (closed with `close`), a fix writer. */
export interface ReplaySetUp {
  settings: {
    run: string;
    check: string;
    upstream: string;
    anthropicUpstream?: string;
    folder: string;
    store?: RunStore;
    timeoutMs: number;
    lenient?: boolean;
    log: (line: string) => void;
  };
  /** The page's database, when storing. */
  database?: { runs: RunStore; repository: Repository };
  fixWriter(): Promise<ModelClient>;
  close(): Promise<void>;
}

/** Opens what the flags ask for. */
export async function replaySetUp(
  flags: ReplayFlags,
  log: (line: string) => void,
): Promise<ReplaySetUp> {
  const timeoutMs = wholeNumber(flags.timeout, '--timeout', 1) * 1000;
  let database: ReplaySetUp['database'];
  let close = () => Promise.resolve();
  if (flags.store) {
    const [{ openDatabase }, { RunStore }, { Repository }] = await Promise.all([
      import('../store/database.js'),
      import('../store/runs.js'),
      import('../store/repository.js'),
    ]);
    const db = await openDatabase(databaseLocation());
    database = { runs: new RunStore(db), repository: new Repository(db) };
    close = () => db.close();
  }
  return {
    settings: {
      run: flags.run,
      check: flags.check,
      upstream: flags.upstream,
      ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
      folder: flags.out ?? defaultRunsFolder(),
      ...(database ? { store: database.runs } : {}),
      timeoutMs,
      ...(flags.lenient ? { lenient: true } : {}),
      log,
    },
    ...(database ? { database } : {}),
    async fixWriter() {
      if (!flags.fixModel)
        throw new UserError(
          'a fix must be written: give --fix-model provider:model (for example openai:gpt-4o)',
        );
      const { createModelClient } = await import('../llm/client.js');
      return createModelClient({
        model: flags.fixModel,
        ...(flags.fixBaseUrl ? { baseUrl: flags.fixBaseUrl } : {}),
        temperature: 0,
      });
    },
    close,
  };
}

/** The recorded run named on the command line: a trace file, else a run id in the database. */
export async function recordedTrace(path: string, runs: RunStore | undefined): Promise<Trace> {
  if (existsSync(path)) {
    const { loadTrace } = await import('../trace/load.js');
    return loadTrace(path);
  }
  const stored = await runs?.trace(path.replace(/\.json$/, ''));
  if (stored) return stored;
  throw new UserError(`${path}: no such file${runs ? ' and no recorded run of that id' : ''}`);
}

/** Progress on standard error. */
export const progress = (command: string) => (line: string) =>
  process.stderr.write(`faultline ${command}: ${line}\n`);
