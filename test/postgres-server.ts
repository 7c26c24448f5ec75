/**
 * A throwaway PostgreSQL server for tests: Debian's server binaries (the `postgresql` package),
 * a cluster in a temporary folder, listening on 127.0.0.1 at a free port with its socket in that
 * folder, trust authentication, stopped and removed by `stop()`; `restart()` stops it at once
 * (connections cut, as in a crash) and starts it again on the same port, for fault tests. PostgreSQL refuses to run as
 * root, so under root it runs as the `postgres` user. `startPostgres` answers a reason instead
 * when it cannot start here, for the test to skip with.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** A running test server. */
export interface PostgresServer {
  /** The URL of a database on it. */
  url(database: string): string;
  /** Creates an empty database and gives its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once (immediate mode) and, after `downMs`, starts it again. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's binaries, if any. */
function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((left, right) => Number(right) - Number(left));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The numeric ids of a user, from `id`. */
async function idsOf(user: string): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      run('id', ['-u', user]).then(({ stdout }) => Number(stdout.trim())),
      run('id', ['-g', user]).then(({ stdout }) => Number(stdout.trim())),
    ]);
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Starts a server, or says why it cannot. */
export async function startPostgres(): Promise<PostgresServer | { skip: string }> {
  const bin = binaries();
  if (!bin)
    return {
      skip: 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)',
    };
  const root = process.getuid?.() === 0;
  const owner = root ? await idsOf('postgres') : undefined;
  if (root && (!owner || !existsSync('/usr/sbin/runuser')))
    return { skip: 'running as root without a postgres user and runuser to start PostgreSQL as' };
  const folder = await mkdtemp(join(tmpdir(), 'faultline-postgres-'));
  if (owner) await chown(folder, owner.uid, owner.gid);
  const data = join(folder, 'data');
  const as = (command: string, args: string[]) =>
    root
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  try {
    await as('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '--locale=C',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    const port = await freePort();
    const settings = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    const start = () =>
      as('pg_ctl', ['-D', data, '-l', join(folder, 'server.log'), '-o', settings, '-w', 'start']);
    await start();
    const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
    // A test process that ends without stop() (a crash, a cancelled run) leaves no server behind.
    const leftOver = () => {
      const stopArgs = [join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'];
      if (root) spawnSync('runuser', ['-u', 'postgres', '--', ...stopArgs]);
      else spawnSync(stopArgs[0]!, stopArgs.slice(1));
      rmSync(folder, { recursive: true, force: true });
    };
    process.once('exit', leftOver);
    return {
      url,
      async createDatabase(name) {
        // A bare connection: the maintenance database gets no faultline tables.
        const admin = new pg.Client({ connectionString: url('postgres') });
        await admin.connect();
        try {
          await admin.query(`CREATE DATABASE ${name}`);
        } finally {
          await admin.end();
        }
        return url(name);
      },
      async restart(downMs = 0) {
        await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await start();
      },
      async stop() {
        process.removeListener('exit', leftOver);
        await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
    const detail = error instanceof Error ? error.message.split('\n').slice(0, 3).join(' ') : '';
    return { skip: `PostgreSQL did not start here (${detail})` };
  }
}
