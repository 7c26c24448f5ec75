/**
 * Access checks for faultline's local servers (the page and API; the recording proxy uses the same
 * host and origin rules).
 *
 * - Host: the `Host` header is parsed, not prefix-matched. Only `localhost`, an IPv4 address in
 *   127.0.0.0/8 and `[::1]` are accepted (with the server's port, when it names one), plus the
 *   public hosts configured in token mode. A page on an attacker's domain that resolves to
 *   127.0.0.1 (DNS rebinding) names its own domain in `Host` and is refused.
 * - Cross-site requests: a request that changes state or starts model calls must not come from
 *   another site. Browsers say where a request comes from (`Origin`, `Sec-Fetch-Site`); such a
 *   request is accepted only from the server's own origin, or with the token as a bearer header
 *   (which no other page can know). Its body must be JSON or octet-stream: the content types a
 *   page may send cross-site without a CORS preflight (text/plain, forms) are refused.
 * - Token (required off loopback): every request must carry it, as `Authorization: Bearer`, the
 *   `faultline_token` cookie the page sets, or `?token=` once in the page address.
 */
import { timingSafeEqual } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/** A `Host` header (or URL authority) split into its name and port. */
export interface HostAndPort {
  /** Lower-cased; an IPv6 address keeps its brackets (`[::1]`). */
  hostname: string;
  port?: number;
}

/** Parses `name`, `name:port`, `[v6]` or `[v6]:port`; undefined when it is none of these. */
export function parseHost(header: string): HostAndPort | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^[\]:/\s@]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65_535) return undefined;
  return { hostname: match[1]!.toLowerCase(), ...(port !== undefined ? { port } : {}) };
}

/**
 * True for a host name that only this machine can reach: `localhost`, a dotted IPv4 address in
 * 127.0.0.0/8, or the IPv6 loopback (with or without brackets). `127.evil.example` is not one.
 */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (name === 'localhost' || name === '[::1]' || name === '::1') return true;
  return isIPv4(name) && name.startsWith('127.');
}

/** Addresses that listen on every interface: no single name identifies the server. */
export const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/** What a server accepts in `Host`. */
export interface HostRule {
  /** The port the server listens on, once known; a `Host` naming another port is refused. */
  port?: () => number | undefined;
  /** Names accepted besides the loopback ones (token mode: the bound address, `--public-host`). */
  publicHosts?: readonly string[];
  /** Accept any host name (token mode bound to every interface with no public host named). */
  anyHost?: boolean;
}

/** Why a `Host` header is refused, or undefined when it is accepted. A missing header passes. */
export function hostProblem(header: string | undefined, rule: HostRule): string | undefined {
  if (header === undefined || header === '') return undefined;
  const parsed = parseHost(header);
  if (!parsed) return `host ${JSON.stringify(header.slice(0, 100))} is not a valid host`;
  const expectedPort = rule.port?.();
  if (parsed.port !== undefined && expectedPort !== undefined && parsed.port !== expectedPort)
    return `host ${header} names port ${parsed.port}, but faultline listens on ${expectedPort}`;
  if (rule.anyHost || isLoopback(parsed.hostname)) return undefined;
  const publicHosts = (rule.publicHosts ?? []).map((host) => host.toLowerCase());
  if (publicHosts.includes(parsed.hostname)) return undefined;
  return `host ${parsed.hostname} is not allowed; open the page at 127.0.0.1${publicHosts.length > 0 ? ` or ${publicHosts.join(', ')}` : ''}`;
}

/** Methods that only read. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Body types a state-changing request may carry: none that a page can send without a preflight. */
const ACCEPTED_BODY_TYPES = new Set(['application/json', 'application/octet-stream']);

/**
 * Paths that also take protobuf: OTLP/HTTP exporters send `application/x-protobuf`, which a page
 * cannot send cross-site without a preflight either.
 */
const PROTOBUF_PATHS = new Set(['/v1/traces']);

/** True when the request declares a body: a length above zero, or a chunked one. */
function declaresBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return Number(length) > 0;
  // Not `request.body`: the Node adapter gives every non-GET request a stream, empty or not.
  return request.headers.has('transfer-encoding');
}

/**
 * Why a state-changing request is refused as cross-site, or undefined when it may go on. A request
 * with neither `Origin` nor `Sec-Fetch-Site` comes from a program, not a page, and passes; a page's
 * request must come from the server's own origin (`http://` + its `Host`).
 */
export function crossSiteProblem(request: Request): string | undefined {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none')
    return `a ${site} request may not change anything here (Sec-Fetch-Site: ${site})`;
  const origin = request.headers.get('origin');
  if (origin === null) return undefined;
  const host = request.headers.get('host');
  let originHost: string | undefined;
  try {
    const url = new URL(origin);
    originHost = url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    originHost = undefined;
  }
  if (!originHost || !host || originHost.toLowerCase() !== host.toLowerCase())
    return `requests from ${origin.slice(0, 100)} may not change anything here`;
  return undefined;
}

/**
 * Why a state-changing request's body type is refused, or undefined when it is accepted: JSON or
 * octet-stream (protobuf on /v1/traces), or no content type on a request without a body.
 */
export function bodyTypeProblem(request: Request): string | undefined {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (ACCEPTED_BODY_TYPES.has(type) || (type === '' && !declaresBody(request))) return undefined;
  if (type === 'application/x-protobuf' && PROTOBUF_PATHS.has(new URL(request.url).pathname))
    return undefined;
  return `send the body as application/json (a trace file may also be application/octet-stream), not ${type || 'without a content type'}`;
}

/** True when two secrets are equal, compared in constant time. */
export function sameSecret(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token from an `Authorization: Bearer` header, if any. */
const bearerOf = (context: Context) =>
  /^Bearer\s+(\S.*)$/i.exec(context.req.header('authorization') ?? '')?.[1];

/** Settings of the access guard. */
export interface AccessOptions extends HostRule {
  token?: string;
}

/** The guard for every route. */
export function accessGuard(options: AccessOptions): MiddlewareHandler {
  return async (context, next) => {
    const hostRefused = hostProblem(context.req.header('host'), options);
    if (hostRefused) return context.json({ error: hostRefused }, 403);
    const bearer = bearerOf(context);
    if (options.token) {
      const fromQuery = context.req.query('token');
      const presented = bearer ?? getCookie(context, 'faultline_token') ?? fromQuery;
      if (!presented || !sameSecret(presented, options.token))
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
    }
    if (!SAFE_METHODS.has(context.req.method)) {
      // A bearer token proves the caller is no other site's page; a cookie does not.
      const tokenInHeader = options.token !== undefined && bearer !== undefined;
      const crossSite = tokenInHeader ? undefined : crossSiteProblem(context.req.raw);
      if (crossSite) return context.json({ error: crossSite }, 403);
      const bodyType = bodyTypeProblem(context.req.raw);
      if (bodyType) return context.json({ error: bodyType }, 415);
    }
    return next();
  };
}
