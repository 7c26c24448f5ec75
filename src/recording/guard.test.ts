import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { proxyToken } from './guard.js';

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
