/** The security headers every response carries, with their exact values (hono/secure-headers). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { createApp } from './app.js';

describe('security headers', () => {
  it('sets these three, and none of the middleware’s other defaults', async () => {
    const db = await openDatabase(':memory:');
    const app = createApp({ repository: new Repository(db) });
    for (const path of ['/api/no-such-route', '/']) {
      const response = await app.request(`http://127.0.0.1${path}`);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(
        response.headers.get('content-security-policy'),
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      );
      for (const header of [
        'strict-transport-security',
        'x-frame-options',
        'cross-origin-opener-policy',
      ])
        assert.equal(response.headers.get(header), null, header);
    }
    await db.close();
  });
});
