/**
 * `faultline launch [--daemon]`: the web page, API and OTLP span receiver on 127.0.0.1:8500 by
 * default (spans also on --otlp-port), with state in FAULTLINE_HOME; with --daemon, a detached
 * copy of this command that logs to the home's log.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import {
  ENVIRONMENT,
  environmentValue,
  faultlineHome,
  isDaemonChild,
  serverToken,
} from '../../config.js';
import { UserError } from '../../errors.js';
import { wholeNumber } from '../flag-values.js';
import { isAlive, liveState, logFile } from '../../server/state.js';
import { isPostgresUrl, redactUrl } from '../../store/driver.js';

interface LaunchFlags {
  port: string;
  host: string;
  daemon?: boolean;
  token?: string;
  publicHost?: string[];
  baseUrl?: string;
  otlpPort?: string;
  otlpQuiet?: string;
  otlpMaxRunSpans?: string;
  liveMethod?: string;
  databaseUrl?: string;
  liveModel?: string;
  jobTimeout?: string;
}

/** The command being run (dist/cli/index.js, or src/cli/index.ts under tsx with its loader in execArgv). */
const cliEntry = () => process.argv[1] ?? fileURLToPath(new URL('../index.js', import.meta.url));

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function portOf(value: string, flag = '--port'): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UserError(`${flag} must be a number from 0 to 65535, got "${value}"`);
  return port;
}

function millisecondsOf(value: string, flag: string): number {
  const milliseconds = Number(value);
  if (!Number.isFinite(milliseconds) || milliseconds < 0 || milliseconds > 600_000)
    throw new UserError(`${flag} must be milliseconds from 0 to 600000, got "${value}"`);
  return milliseconds;
}

/** The flags that reach a daemon's own `launch` unchanged. */
const liveArguments = (flags: LaunchFlags) => [
  ...(flags.otlpPort !== undefined ? ['--otlp-port', flags.otlpPort] : []),
  ...(flags.otlpQuiet !== undefined ? ['--otlp-quiet', flags.otlpQuiet] : []),
  ...(flags.otlpMaxRunSpans !== undefined ? ['--otlp-max-run-spans', flags.otlpMaxRunSpans] : []),
  ...(flags.liveMethod ? ['--live-method', flags.liveMethod] : []),
  ...(flags.liveModel ? ['--live-model', flags.liveModel] : []),
  ...(flags.jobTimeout !== undefined ? ['--job-timeout', flags.jobTimeout] : []),
];

/** Registers `faultline launch`. */
export function registerLaunch(program: Command, exit: (code: number) => void): void {
  program
    .command('launch')
    .description('start the web page and API (default http://127.0.0.1:8500)')
    .option('-p, --port <port>', 'port to listen on', '8500')
    .option(
      '--host <address>',
      'address to bind; anything but loopback requires --token',
      '127.0.0.1',
    )
    .option('-d, --daemon', 'run in the background; see `faultline status`, `logs`, `stop`')
    .option('--token <token>', 'require this token on every request (or set FAULTLINE_TOKEN)')
    .option(
      '--public-host <name...>',
      'with --token: the host names the page is opened at (others are refused)',
    )
    .option(
      '--base-url <url>',
      "the endpoint for openai-compatible and ollama models; the server's OpenAI, Anthropic and Google keys go only to those providers' endpoints",
    )
    .option(
      '--otlp-port <port>',
      'also take OpenTelemetry spans (OTLP/HTTP) on this port, 4318 by convention; /v1/traces on --port always takes them',
    )
    .option('--otlp-quiet <ms>', 'a run is complete this long after its root span ends', '1000')
    .option(
      '--otlp-max-run-spans <count>',
      'a run with more spans than this is dropped, with an error in the log (default 10000)',
    )
    .option(
      '--database-url <url>',
      'keep the store in this PostgreSQL database (postgres://…; or set FAULTLINE_DATABASE_URL) instead of the SQLite file in FAULTLINE_HOME',
    )
    .option(
      '--live-method <name>',
      'besides the offline method, attribute failed live runs with this one (e.g. an LLM method)',
    )
    .option('--live-model <model>', 'the model for --live-method')
    .option(
      '--job-timeout <seconds>',
      'stop an upload, analysis or received run that takes longer, answering with an error that names it',
      '120',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  faultline launch\n  faultline launch --otlp-port 4318\n  FAULTLINE_DATABASE_URL=postgres://faultline@db/faultline faultline launch --otlp-port 4318\n  faultline launch --daemon --port 8600\n  FAULTLINE_TOKEN=s3cret faultline launch --host 0.0.0.0 --public-host faultline.lan\n  faultline launch --base-url http://127.0.0.1:8000/v1',
    )
    .action(async (flags: LaunchFlags) => {
      const home = faultlineHome();
      const port = portOf(flags.port);
      if (flags.otlpMaxRunSpans !== undefined)
        wholeNumber(flags.otlpMaxRunSpans, '--otlp-max-run-spans', 1);
      if (flags.jobTimeout !== undefined) wholeNumber(flags.jobTimeout, '--job-timeout', 1);
      if (flags.databaseUrl !== undefined && !isPostgresUrl(flags.databaseUrl))
        throw new UserError(
          `--database-url must be a postgres:// URL, got "${redactUrl(flags.databaseUrl)}"`,
        );
      const token = serverToken(flags.token);
      const { state: running } = liveState(home);
      if (running) {
        process.stderr.write(
          `faultline is already running at ${running.url} (pid ${running.pid}); stop it with \`faultline stop\`\n`,
        );
        exit(1);
        return;
      }
      if (flags.daemon) await launchDaemon(home, port, token, flags);
      else await serveForeground(home, port, token, flags);
      exit(0);
    });
}

/** Starts a detached copy of `launch` and waits (10 s at most) until it has written its state. */
async function launchDaemon(
  home: string,
  port: number,
  token: string | undefined,
  flags: LaunchFlags,
): Promise<void> {
  mkdirSync(home, { recursive: true });
  const logDescriptor = openSync(logFile(home), 'a');
  // The token and the database URL (its password) travel in the environment, not the command
  // line, so `ps` does not show them.
  const databaseUrl = flags.databaseUrl ?? environmentValue(ENVIRONMENT.databaseUrl);
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      cliEntry(),
      'launch',
      '--port',
      String(port),
      '--host',
      flags.host,
      ...(flags.publicHost?.length ? ['--public-host', ...flags.publicHost] : []),
      ...(flags.baseUrl ? ['--base-url', flags.baseUrl] : []),
      ...liveArguments(flags),
    ],
    {
      detached: true,
      stdio: ['ignore', logDescriptor, logDescriptor],
      env: {
        ...process.env,
        [ENVIRONMENT.home]: home,
        [ENVIRONMENT.daemonChild]: '1',
        ...(token ? { [ENVIRONMENT.token]: token } : {}),
        ...(databaseUrl ? { [ENVIRONMENT.databaseUrl]: databaseUrl } : {}),
      },
    },
  );
  child.unref();
  closeSync(logDescriptor);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await sleep(100);
    const { state } = liveState(home);
    if (state && state.pid === child.pid) {
      process.stdout.write(
        `faultline is running at ${state.url} (pid ${state.pid}); logs: ${logFile(home)}\n`,
      );
      return;
    }
    if (child.exitCode !== null || (child.pid !== undefined && !isAlive(child.pid))) break;
  }
  const tail = existsSync(logFile(home))
    ? readFileSync(logFile(home), 'utf8').trim().split('\n').slice(-3).join('\n')
    : '';
  throw new UserError(`the server did not start${tail ? `; last log lines:\n${tail}` : ''}`);
}

/** Serves in this process until SIGINT or SIGTERM. */
async function serveForeground(
  home: string,
  port: number,
  token: string | undefined,
  flags: LaunchFlags,
): Promise<void> {
  // A daemon's stdout is the log file already: it logs there once, not twice.
  const daemonChild = isDaemonChild();
  // Loaded here: the web stack is not needed by any other command.
  const { startServer } = await import('../../server/serve.js');
  const { state, stop } = await startServer({
    home,
    host: flags.host,
    port,
    echo: !daemonChild,
    ...(token ? { token } : {}),
    ...(flags.publicHost?.length ? { publicHosts: flags.publicHost } : {}),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.otlpPort !== undefined ? { otlpPort: portOf(flags.otlpPort, '--otlp-port') } : {}),
    ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
    ...(flags.jobTimeout !== undefined
      ? { jobDeadlineMs: 1000 * wholeNumber(flags.jobTimeout, '--job-timeout', 1) }
      : {}),
    live: {
      ...(flags.otlpMaxRunSpans !== undefined
        ? { maxSpansPerRun: wholeNumber(flags.otlpMaxRunSpans, '--otlp-max-run-spans', 1) }
        : {}),
      ...(flags.otlpQuiet !== undefined
        ? { quietMs: millisecondsOf(flags.otlpQuiet, '--otlp-quiet') }
        : {}),
      ...(flags.liveMethod
        ? {
            llm: {
              method: flags.liveMethod,
              ...(flags.liveModel ? { model: flags.liveModel } : {}),
            },
          }
        : {}),
    },
  });
  if (!daemonChild)
    process.stdout.write(
      `faultline is running at ${state.url}${token ? '?token=…' : ''} (Ctrl-C to stop)\nOpenTelemetry spans: ${state.otlpUrl ?? `${state.url}v1/traces`}\n`,
    );
  await new Promise<void>((resolve) => {
    const shutdown = () => {
      void stop()
        .catch((error: unknown) => process.stderr.write(`faultline: shutdown: ${String(error)}\n`))
        .then(() => {
          // Stopped cleanly, the process ends once its output is written; a handle left open below
          // (a job worker terminated while its TypeScript loader starts, from source) must not keep
          // it alive past `faultline stop`'s wait.
          setTimeout(() => process.exit(), 1000).unref();
          resolve();
        });
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
}
