/** The host rule and the cross-site rules, on their own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyTypeProblem, crossSiteProblem, hostProblem, isLoopback, parseHost } from './auth.js';

describe('host check', () => {
  it('parses names, IPv4 and bracketed IPv6 with or without a port', () => {
    assert.deepEqual(parseHost('LocalHost:8500'), { hostname: 'localhost', port: 8500 });
    assert.deepEqual(parseHost('[::1]:8500'), { hostname: '[::1]', port: 8500 });
    assert.deepEqual(parseHost('127.0.0.1'), { hostname: '127.0.0.1' });
    for (const bad of ['', 'a b', 'user@127.0.0.1', '127.0.0.1:99999', '[::1', 'http://x'])
      assert.equal(parseHost(bad), undefined, bad);
  });

  it('takes loopback addresses only, by value, not by prefix', () => {
    for (const host of ['localhost', '127.0.0.1', '127.255.0.9', '[::1]', '::1'])
      assert.ok(isLoopback(host), host);
    for (const host of [
      '127.evil.example',
      '127.0.0.1.nip.io',
      '127.0.0.256',
      '0.0.0.0',
      '10.0.0.1',
    ])
      assert.ok(!isLoopback(host), host);
  });

  it("names the server's port, and public hosts only where configured", () => {
    const rule = { port: () => 8500 };
    assert.equal(hostProblem('127.0.0.1:8500', rule), undefined);
    assert.equal(hostProblem(undefined, rule), undefined, 'a program may send no Host');
    assert.match(hostProblem('127.0.0.1:9999', rule) ?? '', /listens on 8500/);
    assert.match(hostProblem('faultline.lan:8500', rule) ?? '', /not allowed/);
    assert.equal(
      hostProblem('faultline.lan:8500', { ...rule, publicHosts: ['faultline.lan'] }),
      undefined,
    );
    assert.equal(hostProblem('anything.example', { anyHost: true }), undefined);
  });
});

describe('cross-site requests', () => {
  const request = (headers: Record<string, string>) =>
    new Request('http://127.0.0.1:8500/api/traces', { method: 'POST', headers });
  it("accepts the server's own origin and programs, refuses other sites", () => {
    assert.equal(crossSiteProblem(request({ host: '127.0.0.1:8500' })), undefined);
    assert.equal(
      crossSiteProblem(request({ host: '127.0.0.1:8500', origin: 'http://127.0.0.1:8500' })),
      undefined,
    );
    assert.equal(crossSiteProblem(request({ 'sec-fetch-site': 'same-origin' })), undefined);
    assert.ok(
      crossSiteProblem(request({ host: '127.0.0.1:8500', origin: 'http://localhost:8500' })),
    );
    assert.ok(crossSiteProblem(request({ host: '127.0.0.1:8500', origin: 'null' })));
    assert.ok(crossSiteProblem(request({ 'sec-fetch-site': 'same-site' })));
  });

  it('accepts JSON and bytes, and no type only without a body', () => {
    assert.equal(
      bodyTypeProblem(request({ 'content-type': 'application/json; charset=utf-8' })),
      undefined,
    );
    assert.equal(
      bodyTypeProblem(request({ 'content-type': 'application/octet-stream' })),
      undefined,
    );
    assert.equal(bodyTypeProblem(request({})), undefined);
    assert.equal(bodyTypeProblem(request({ 'content-length': '0' })), undefined);
    // A page's fetch of an untyped Blob sends a body with no content type and needs no preflight.
    assert.ok(bodyTypeProblem(request({ 'content-length': '12' })));
    assert.ok(bodyTypeProblem(request({ 'content-type': 'text/plain' })));
    assert.ok(bodyTypeProblem(request({ 'content-type': 'multipart/form-data; boundary=x' })));
  });
});
