/**
 * `faultline proxy --upstream URL`: record every model call an agent system makes, through a local
 * proxy its clients point their base URL at. Each run is written to `--out` (default
 * $FAULTLINE_HOME/runs) as canonical trace JSON as it happens, and stored for the page.
 */
import type { Command } from 'commander';
import { join } from 'node:path';
import { databaseLocation, faultlineHome } from '../../config.js';
import { UserError } from '../../errors.js';
import { nonNegativeNumber, wholeNumber } from '../flag-values.js';

interface ProxyFlags {
  upstream: string;
  anthropicUpstream?: string;
  port: string;
  host: string;
  out?: string;
  runGap: string;
  token?: string;
  store: boolean;
  quiet?: boolean;
  inject?: string;
  manipulator?: string;
  manipulatorBaseUrl?: string;
  temperature: string;
  logprobs?: boolean;
}

/** Where runs are written by default. */
export const defaultRunsFolder = () => join(faultlineHome(), 'runs');

/** The injector of --inject, with its manipulator when --manipulator names one. */
async function injectorOf(flags: ProxyFlags) {
  const [{ loadPlan }, { operatorCatalog, MANIPULATOR }, { PlanInjector }, { Manipulator }] =
    await Promise.all([
      import('../../recording/inject/plan.js'),
      import('../../recording/inject/operators.js'),
      import('../../recording/inject/injector.js'),
      import('../../recording/inject/manipulator.js'),
    ]);
  const plan = loadPlan(flags.inject!, operatorCatalog);
  if (plan.targets.some((target) => target.operator === MANIPULATOR) && !flags.manipulator)
    throw new UserError(
      `${flags.inject}: a target uses the manipulator: name its model with --manipulator provider:model`,
    );
  const temperature = nonNegativeNumber(flags.temperature, '--temperature');
  const log = (line: string) => process.stderr.write(`faultline proxy: ${line}\n`);
  return new PlanInjector({
    plan,
    ...(flags.manipulator
      ? {
          manipulator: new Manipulator({
            model: flags.manipulator,
            ...(flags.manipulatorBaseUrl ? { baseUrl: flags.manipulatorBaseUrl } : {}),
            temperature,
            log,
          }),
        }
      : {}),
    log,
  });
}

/** What `faultline proxy --help` says after the flags. */
const PROXY_HELP = `
Point the system's clients at the proxy:
  OPENAI_BASE_URL=http://127.0.0.1:8600/v1   ANTHROPIC_BASE_URL=http://127.0.0.1:8600
and name agents and runs with the headers x-faultline-agent and x-faultline-run (see docs/RECORDING.md).
The API key comes from each call (Authorization, x-api-key) or from OPENAI_API_KEY / ANTHROPIC_API_KEY
here; it is sent to the upstream only and never written down.

Examples:
  faultline proxy --upstream https://api.openai.com/v1
  faultline proxy --upstream https://api.anthropic.com --port 8601 --out runs/
  faultline proxy --upstream http://127.0.0.1:8000/v1 --logprobs   # vLLM, llama.cpp, Ollama /v1
  faultline outcome run-20260102-030405-1a2b failed`;

/** Registers `faultline proxy`. */
export function registerProxy(program: Command, exit: (code: number) => void): void {
  program
    .command('proxy')
    .description('record the model calls of any agent system through a local proxy')
    .requiredOption(
      '--upstream <url>',
      'where calls go: https://api.openai.com/v1, https://api.anthropic.com, an OpenAI-compatible server',
    )
    .option('--anthropic-upstream <url>', 'where Anthropic Messages calls go (default: --upstream)')
    .option('-p, --port <port>', 'port to listen on', '8600')
    .option(
      '--host <address>',
      'address to bind; anything but loopback requires --token',
      '127.0.0.1',
    )
    .option('--out <dir>', 'folder the runs are written to (default: $FAULTLINE_HOME/runs)')
    .option(
      '--run-gap <seconds>',
      'a call without x-faultline-run after this idle time starts a new run',
      '30',
    )
    .option(
      '--token <token>',
      'require this token as x-faultline-token (off loopback, FAULTLINE_TOKEN also sets it)',
    )
    .option('--no-store', 'do not store runs in the database the page reads')
    .option('-q, --quiet', 'no line per call on standard error')
    .option(
      '--inject <plan>',
      'inject faults: a plan file (or inline JSON) of targets {agent, occurrence, mode, operator}',
    )
    .option('--manipulator <provider:model>', 'the model that writes manipulator corruptions')
    .option('--manipulator-base-url <url>', "the manipulator's endpoint")
    .option('--temperature <t>', "the manipulator's temperature", '0.7')
    .option(
      '--logprobs',
      "record each step's token log probabilities: Chat Completions calls ask for them, and clients that did not get replies without them",
    )
    .addHelpText('after', PROXY_HELP)
    .action(async (flags: ProxyFlags) => {
      const port = wholeNumber(flags.port, '--port', 0);
      if (port > 65_535) throw new UserError(`--port must be at most 65535, got "${flags.port}"`);
      const runGapMs = nonNegativeNumber(flags.runGap, '--run-gap') * 1000;
      const folder = flags.out ?? defaultRunsFolder();
      // Loaded here: no other command needs the proxy or the database.
      const [{ startProxy, parseUpstream }, { Recorder }, { shownUpstream }, { proxyToken }] =
        await Promise.all([
          import('../../recording/proxy/proxy.js'),
          import('../../recording/record/recorder.js'),
          import('../../recording/proxy/forward.js'),
          import('../../recording/proxy/guard.js'),
        ]);
      const upstream = parseUpstream(flags.upstream);
      const log = (line: string) => {
        if (!flags.quiet) process.stderr.write(`${line}\n`);
      };
      const { store, close } = flags.store ? await openRunStore() : {};
      const injector = flags.inject ? await injectorOf(flags) : undefined;
      const recorder: InstanceType<typeof Recorder> = new Recorder({
        folder,
        ...(store ? { store } : {}),
        run: { upstream: shownUpstream(upstream) },
        ...(injector ? { decorate: (trace) => injector.decorate(trace) } : {}),
        log: (line) => process.stderr.write(`faultline proxy: ${line}\n`),
      });
      injector?.readRunsFrom(recorder);
      const token = proxyToken(flags.host, flags.token);
      const proxy = await startProxy({
        upstream: flags.upstream,
        ...(flags.anthropicUpstream ? { anthropicUpstream: flags.anthropicUpstream } : {}),
        recorder,
        host: flags.host,
        port,
        runGapMs,
        ...(token ? { token } : {}),
        ...(injector ? { injector } : {}),
        ...(flags.logprobs ? { logprobs: true } : {}),
        log,
      });
      process.stderr.write(
        `faultline proxy: recording to ${folder}${store ? ' and the page' : ''}; Ctrl-C to stop\n` +
          `  OPENAI_BASE_URL=${proxy.url}/v1\n  ANTHROPIC_BASE_URL=${proxy.url}\n`,
      );
      await untilStopped(proxy, () => {
        void close?.();
        const runs = recorder.runIds();
        process.stderr.write(
          `faultline proxy: stopped; ${runs.length} run${runs.length === 1 ? '' : 's'} in ${folder}\n`,
        );
      });
      exit(0);
    });
}

/** The database's runs table, for the page; `close` closes the database. */
async function openRunStore() {
  const [{ openDatabase }, { RunStore }] = await Promise.all([
    import('../../store/database.js'),
    import('../../store/runs.js'),
  ]);
  const db = await openDatabase(databaseLocation());
  return { store: new RunStore(db), close: () => db.close() };
}

/** Resolves once SIGINT or SIGTERM has closed the proxy and `stopped` has run. */
function untilStopped(proxy: { close(): Promise<void> }, stopped: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const shutdown = () => {
      void proxy.close().then(() => {
        stopped();
        resolve();
      });
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
}
