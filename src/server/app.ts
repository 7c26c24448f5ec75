/**
 * The web application: access guard, security headers, upload limit, the API under /api, the OTLP
 * receiver on /v1/traces, and the built page. Tested in-process with `app.request()`.
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Repository } from '../store/repository.js';
import { accessGuard, type HostRule } from './auth.js';
import { errorResponse } from './http-errors.js';
import { JobPool } from './job-pool.js';
import { createLiveIngest } from './live.js';
import { otlpRoutes } from './otlp-routes.js';
import { apiRoutes } from './routes.js';
import type { LiveIngest } from '../live/ingest.js';

/** Where `npm run build` puts the page: dist/web at the package root. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Settings of the application. */
export interface AppOptions extends HostRule {
  repository: Repository;
  /** Required when bound off loopback. */
  token?: string;
  /** Runs imports and analyses (default: on the request thread, for in-process use and tests). */
  jobs?: JobPool;
  /** The model endpoint the server was launched with (`--base-url`). */
  baseUrl?: string;
  /** Receives OTLP spans on /v1/traces (default: one storing through `jobs`). */
  live?: LiveIngest;
  /** Largest upload, in bytes (default 64 MB). */
  maxUploadBytes?: number;
  webRoot?: string;
  log?: (line: string) => void;
  /** Log one line per request (method, path, status, time). */
  logRequests?: boolean;
}

/**
 * The security headers of every response: no type sniffing, no referrer, and a policy that lets
 * the page load only its own script, styles, images and API. hono's other defaults (cross-origin
 * policies, HSTS, frame options…) are off: these three are the server's, unchanged.
 */
const SECURITY_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
  xContentTypeOptions: true,
  referrerPolicy: true,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
});

/** Builds the application. */
export function createApp(options: AppOptions): Hono {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxUpload = options.maxUploadBytes ?? 64 * 1024 * 1024;
  const app = new Hono();
  app.onError((error, context) => errorResponse(context, error, log));
  app.notFound((context) =>
    context.json({ error: `no route ${context.req.method} ${context.req.path}` }, 404),
  );
  // The request log is written by hand rather than by hono/logger: that logger can print through
  // `log`, but it writes the URL with its query string, where the page's `?token=` would land in
  // the log, and two lines a request.
  if (options.logRequests) {
    app.use('*', async (context, next) => {
      const started = Date.now();
      await next();
      log(
        `${context.req.method} ${context.req.path} ${context.res.status} ${Date.now() - started}ms`,
      );
    });
  }
  app.use('*', SECURITY_HEADERS);
  app.use('*', accessGuard(options));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: maxUpload,
      onError: (context) =>
        context.json(
          { error: `the upload is larger than ${Math.round(maxUpload / 1024 / 1024)} MB` },
          413,
        ),
    }),
  );
  const jobs = options.jobs ?? new JobPool({ repository: options.repository, log });
  app.route('/', otlpRoutes(options.live ?? createLiveIngest(jobs, log)));
  app.route(
    '/api',
    apiRoutes(options.repository, {
      jobs,
      log,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    }),
  );

  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT;
  if (existsSync(webRoot)) {
    app.use('/*', serveStatic({ root: webRoot }));
    app.get('*', serveStatic({ root: webRoot, path: 'index.html' }));
  } else {
    app.get('/', (context) =>
      context.text(`The page is not built (${webRoot} is missing): run npm run build.`, 503),
    );
  }
  return app;
}
