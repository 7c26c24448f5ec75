/**
 * The server of bench/server-load-run.ts, in a process of its own so that the load's clients do
 * not share its event loop: started on loopback with the home and (optionally) the database URL
 * given as arguments, it prints its URL as one line and stops when its standard input ends.
 */
import { startServer } from '../src/server/serve.js';

const [home, databaseUrl] = process.argv.slice(2);
const server = await startServer({
  home: home!,
  host: '127.0.0.1',
  port: 0,
  ...(databaseUrl ? { databaseUrl } : {}),
});
process.stdout.write(`${server.state.url}\n`);
process.stdin.on('end', () => {
  void server.stop().then(() => process.exit(0));
});
process.stdin.resume();
