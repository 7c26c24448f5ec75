/**
 * Access checks. On loopback, requests must name a loopback host (a DNS-rebinding guard). With a
 * token (required off loopback), every request must carry it: as `Authorization: Bearer`, the
 * `faultline_token` cookie the page sets, or `?token=` once in the page address.
 */
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True for an address that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

function same(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The guard for every route. */
export function accessGuard(options: { token?: string; loopbackOnly: boolean }): MiddlewareHandler {
  return async (context, next) => {
    if (options.loopbackOnly) {
      const host = (context.req.header('host') ?? '').replace(/:\d+$/, '');
      if (host && !isLoopback(host))
        return context.json(
          { error: `host ${host} is not allowed; open the page at 127.0.0.1` },
          403,
        );
    }
    if (!options.token) return next();
    const bearer = /^Bearer\s+(.+)$/i.exec(context.req.header('authorization') ?? '')?.[1];
    const fromQuery = context.req.query('token');
    const presented = bearer ?? getCookie(context, 'faultline_token') ?? fromQuery;
    if (!presented || !same(presented, options.token))
      return context.json(
        {
          error:
            'a valid token is required (Authorization: Bearer <token>, or open the page with ?token=<token>)',
        },
        401,
      );
    if (fromQuery)
      setCookie(context, 'faultline_token', options.token, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
    return next();
  };
}
