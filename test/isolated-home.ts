/**
 * Loaded before every test file (`npm test` passes it with --import): FAULTLINE_HOME points at a
 * temporary folder of this process, removed when it exits, so no test writes into the real home
 * (the LLM reply cache, evaluation results, a server's database). A test that needs its own home
 * sets FAULTLINE_HOME for the process it starts, as before. A PostgreSQL store configured in the
 * shell (FAULTLINE_DATABASE_URL) is set aside too: tests that use one start their own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const home = mkdtempSync(join(tmpdir(), 'faultline-test-home-'));
process.env.FAULTLINE_HOME = home;
delete process.env.FAULTLINE_DATABASE_URL;
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
