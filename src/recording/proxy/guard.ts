/**
 * Who may use the proxy. It spends the user's API key for whoever reaches it, and on 127.0.0.1 any
 * web page the user opens can: a request naming a host that is not loopback (DNS rebinding) or
 * that a browser marks as cross-site is refused, with the page server's own checks
 * (`server/auth.ts`). Off loopback, a token is required, sent as `x-faultline-token` (a client's
 * `Authorization` carries its API key).
 */
import type { IncomingMessage } from 'node:http';
import { serverToken } from '../../config.js';
import { UserError } from '../../errors.js';
import {
  crossSiteProblem,
  hostProblem,
  isLoopback,
  isWildcard,
  sameSecret,
  type HostRule,
} from '../../server/auth.js';

/** Header carrying the proxy's token when it listens off loopback. */
export const TOKEN_HEADER = 'x-faultline-token';

/** A refused request: its status and why. */
export interface Refusal {
  status: number;
  message: string;
}

/**
 * The proxy's token: `--token` always; FAULTLINE_TOKEN only off loopback. That variable is the page
 * server's token too, and on loopback it would only turn away every framework client.
 */
export function proxyToken(host: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return explicit;
  return isLoopback(host) ? undefined : serverToken();
}

/** The first value of a header. */
export const headerValue = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[0] : value;

/**
 * The check of every request for a proxy bound to `host`; `port` gives the bound port once known.
 * Throws when binding off loopback without a token.
 */
export function proxyGuard(
  host: string,
  token: string | undefined,
  port: () => number | undefined,
): (request: IncomingMessage) => Refusal | undefined {
  if (!isLoopback(host) && !token)
    throw new UserError(
      `binding ${host} lets other machines spend your API key through the proxy: set a token with --token or FAULTLINE_TOKEN (clients send it as ${TOKEN_HEADER})`,
    );
  const rule: HostRule = {
    port,
    publicHosts:
      token && !isLoopback(host) && !isWildcard(host)
        ? [host.includes(':') ? `[${host}]` : host]
        : [],
    anyHost: Boolean(token) && isWildcard(host),
  };
  return (request) => {
    const hostRefused = hostProblem(request.headers.host, rule);
    if (hostRefused) return { status: 403, message: `faultline proxy: ${hostRefused}` };
    // Only a browser sends these; a program's request has neither and passes.
    if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined) {
      const headers = new Headers();
      for (const name of ['origin', 'sec-fetch-site', 'host'])
        if (typeof request.headers[name] === 'string') headers.set(name, request.headers[name]);
      const crossSite = crossSiteProblem(new Request('http://proxy.invalid/', { headers }));
      if (crossSite) return { status: 403, message: `faultline proxy: ${crossSite}` };
    }
    if (token) {
      const presented = headerValue(request.headers[TOKEN_HEADER]);
      if (!presented || !sameSecret(presented, token))
        return {
          status: 401,
          message: `faultline proxy: send the proxy's token as ${TOKEN_HEADER}`,
        };
    }
    return undefined;
  };
}
