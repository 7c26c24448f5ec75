/**
 * `faultline launch [--daemon]`, `status`, `logs [-f]`, `stop`: the web page and API on
 * 127.0.0.1:8500 by default, with state in FAULTLINE_HOME.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  watch,
} from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ENVIRONMENT, faultlineHome, isDaemonChild, serverToken } from '../../config.js';
import { UserError } from '../../errors.js';
import { isAlive, liveState, logFile } from '../../server/state.js';

interface LaunchFlags {
  port: string;
  host: string;
  daemon?: boolean;
  token?: string;
  publicHost?: string[];
  baseUrl?: string;
}

/** The command being run (dist/cli/index.js, or src/cli/index.ts under tsx with its loader in execArgv). */
const cliEntry = () => process.argv[1] ?? fileURLToPath(new URL('../index.js', import.meta.url));

function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UserError(`--port must be a number from 0 to 65535, got "${value}"`);
  return port;
}

function uptime(startedAt: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(startedAt)) / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0
    ? `${hours}h ${minutes}m`
    : minutes > 0
      ? `${minutes}m ${seconds % 60}s`
      : `${seconds}s`;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export function registerServer(program: Command, exit: (code: number) => void): void {
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
      "the model endpoint for LLM methods; the server's API keys go only there and to the built-in providers",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  faultline launch\n  faultline launch --daemon --port 8600\n  FAULTLINE_TOKEN=s3cret faultline launch --host 0.0.0.0 --public-host faultline.lan\n  faultline launch --base-url http://127.0.0.1:8000/v1',
    )
    .action(async (flags: LaunchFlags) => {
      const home = faultlineHome();
      const port = portOf(flags.port);
      const token = serverToken(flags.token);
      const { state: running } = liveState(home);
      if (running) {
        process.stderr.write(
          `faultline is already running at ${running.url} (pid ${running.pid}); stop it with \`faultline stop\`\n`,
        );
        exit(1);
        return;
      }
      if (flags.daemon) {
        mkdirSync(home, { recursive: true });
        const logDescriptor = openSync(logFile(home), 'a');
        // The token travels in the environment, not the command line, so `ps` does not show it.
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
          ],
          {
            detached: true,
            stdio: ['ignore', logDescriptor, logDescriptor],
            env: {
              ...process.env,
              [ENVIRONMENT.home]: home,
              [ENVIRONMENT.daemonChild]: '1',
              ...(token ? { [ENVIRONMENT.token]: token } : {}),
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
            exit(0);
            return;
          }
          if (child.exitCode !== null || (child.pid !== undefined && !isAlive(child.pid))) break;
        }
        const tail = existsSync(logFile(home))
          ? readFileSync(logFile(home), 'utf8').trim().split('\n').slice(-3).join('\n')
          : '';
        throw new UserError(`the server did not start${tail ? `; last log lines:\n${tail}` : ''}`);
      }
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
      });
      if (!daemonChild)
        process.stdout.write(
          `faultline is running at ${state.url}${token ? '?token=…' : ''} (Ctrl-C to stop)\n`,
        );
      await new Promise<void>((resolve) => {
        const shutdown = () => {
          void stop().then(resolve);
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      });
      exit(0);
    });

  program
    .command('status')
    .description('say whether the server is running, where, and for how long')
    .addHelpText('after', '\nExit code 0 when running, 3 when not.\n\nExample:\n  faultline status')
    .action(() => {
      const { state, staleRemoved } = liveState(faultlineHome());
      if (!state) {
        process.stdout.write(
          `faultline is not running${staleRemoved ? ' (removed a stale pid file)' : ''}\n`,
        );
        exit(3);
        return;
      }
      process.stdout.write(
        `faultline is running at ${state.url}\n  pid     ${state.pid}\n  uptime  ${uptime(state.startedAt)}\n  logs    ${logFile(faultlineHome())}\n`,
      );
      exit(0);
    });

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
      if (!flags.follow) {
        exit(0);
        return;
      }
      let offset = Buffer.byteLength(text);
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
      exit(0);
    });

  program
    .command('stop')
    .description('stop the background server')
    .addHelpText('after', '\nExample:\n  faultline stop')
    .action(async () => {
      const home = faultlineHome();
      const { state, staleRemoved } = liveState(home);
      if (!state) {
        process.stdout.write(
          `faultline is not running${staleRemoved ? ' (removed a stale pid file)' : ''}\n`,
        );
        exit(0);
        return;
      }
      process.kill(state.pid, 'SIGTERM');
      for (let attempt = 0; attempt < 100 && isAlive(state.pid); attempt += 1) await sleep(100);
      if (isAlive(state.pid))
        throw new UserError(
          `faultline (pid ${state.pid}) did not stop within 10 s; kill it with: kill -9 ${state.pid}`,
        );
      liveState(home);
      process.stdout.write(`stopped faultline (pid ${state.pid})\n`);
      exit(0);
    });
}
