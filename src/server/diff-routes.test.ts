/** GET /api/diff in-process, over traces stored through the upload route. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../../test/paths.js';
import { openDatabase, type Db } from '../store/database.js';
import { Repository } from '../store/repository.js';
import type { DiffResponse, ErrorResponse, UploadResponse } from './api-types.js';
import { createApp } from './app.js';

const HOST = { host: '127.0.0.1:8500' };
const FIXTURES = join(ROOT, 'src/attribution/diverge/__fixtures__');

describe('GET /api/diff', () => {
  let folder = '';
  let db: Db;
  let app: ReturnType<typeof createApp>;
  const ids: Record<string, string> = {};

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-diff-'));
    db = await openDatabase(join(folder, 'faultline.db'));
    app = createApp({ repository: new Repository(db), webRoot: join(folder, 'no-web') });
    for (const name of ['failed', 'passed', 'other-task']) {
      const response = await app.request(`/api/traces?name=${name}.json`, {
        method: 'POST',
        body: await readFile(join(FIXTURES, `${name}.json`), 'utf8'),
        headers: { ...HOST, 'content-type': 'application/octet-stream' },
      });
      ids[name] = ((await response.json()) as UploadResponse).traces[0]!.id;
    }
  });
  after(async () => {
    await db.close();
    await rm(folder, { recursive: true, force: true });
  });

  const diff = (query: string) => app.request(`/api/diff${query}`, { headers: HOST });

  it('answers where the failed run parts from the passing one', async () => {
    const response = await diff(`?failed=${ids.failed}&passed=${ids.passed}`);
    assert.equal(response.status, 200);
    const { diff: answer } = (await response.json()) as DiffResponse;
    assert.equal(answer.divergence?.failedStep, 4);
    assert.equal(answer.divergence?.agent, 'Calculator');
    assert.equal(answer.failed.name, 'failed.json');
    assert.deepEqual([answer.failed.id, answer.passed.id], [ids.failed, ids.passed]);
    assert.equal(answer.pairs.length, 7);
  });

  it('refuses a missing or unknown id, and runs of different tasks', async () => {
    const missing = await diff(`?failed=${ids.failed}`);
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as ErrorResponse).error, /passed is missing/);
    assert.equal((await diff(`?failed=${ids.failed}&passed=nope`)).status, 404);
    const other = await diff(`?failed=${ids.failed}&passed=${ids['other-task']}`);
    assert.equal(other.status, 400);
    assert.match(((await other.json()) as ErrorResponse).error, /runs of different tasks/);
  });

  it('lists diverge among the methods, marked as needing a passing run', async () => {
    const { methods } = (await (await app.request('/api/methods', { headers: HOST })).json()) as {
      methods: { name: string; needsReference?: boolean }[];
    };
    assert.equal(methods.find((method) => method.name === 'diverge')?.needsReference, true);
    assert.equal(methods.find((method) => method.name === 'offline')?.needsReference, undefined);
  });
});
