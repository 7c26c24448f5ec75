import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { afterEach, test } from 'node:test';
import { proxyGuard, proxyToken, TOKEN_HEADER } from './guard.js';

const previous = process.env.FAULTLINE_TOKEN;
afterEach(() => {
  if (previous === undefined) delete process.env.FAULTLINE_TOKEN;
  else process.env.FAULTLINE_TOKEN = previous;
});

test('FAULTLINE_TOKEN guards the proxy only off loopback; --token always does', () => {
  process.env.FAULTLINE_TOKEN = 'page-token';
  assert.equal(proxyToken('127.0.0.1', undefined), undefined);
  assert.equal(proxyToken('localhost', undefined), undefined);
  assert.equal(proxyToken('0.0.0.0', undefined), 'page-token');
  assert.equal(proxyToken('192.168.1.5', undefined), 'page-token');
  assert.equal(proxyToken('127.0.0.1', 'flag-token'), 'flag-token');
  assert.equal(proxyToken('0.0.0.0', 'flag-token'), 'flag-token');
});

test('off loopback the token is checked: the right one passes, any other is refused', () => {
  const check = proxyGuard('0.0.0.0', 'proxy-token', () => 8600);
  const request = (token?: string) =>
    ({
      headers: { host: 'box.example:8600', ...(token ? { [TOKEN_HEADER]: token } : {}) },
    }) as unknown as IncomingMessage;
  assert.equal(check(request('proxy-token')), undefined);
  for (const wrong of [undefined, 'proxy-tokem', 'proxy-token-longer'])
    assert.equal(check(request(wrong))?.status, 401, String(wrong));
});
