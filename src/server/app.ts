/**
 * The web application: access guard, security headers, upload limit, the API under /api, and the
 * built page. Tested in-process with `app.request()`.
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Repository } from '../store/repository.js';
import { accessGuard, type HostRule } from './auth.js';
import { errorResponse } from './http-errors.js';
import { JobPool } from './job-pool.js';
import { apiRoutes } from './routes.js';

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
  /** Largest upload, in bytes (default 64 MB). */
  maxUploadBytes?: number;
  webRoot?: string;
  log?: (line: string) => void;
  /** Log one line per request (method, path, status, time). */
  logRequests?: boolean;
}

const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Builds the application. */
export function createApp(options: AppOptions): Hono {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxUpload = options.maxUploadBytes ?? 64 * 1024 * 1024;
  const app = new Hono();
  app.onError((error, context) => errorResponse(context, error, log));
  app.notFound((context) =>
    context.json({ error: `no route ${context.req.method} ${context.req.path}` }, 404),
  );
  if (options.logRequests) {
    app.use('*', async (context, next) => {
      const started = Date.now();
      await next();
      log(
        `${context.req.method} ${context.req.path} ${context.res.status} ${Date.now() - started}ms`,
      );
    });
  }
  app.use('*', async (context, next) => {
    await next();
    context.header('X-Content-Type-Options', 'nosniff');
    context.header('Referrer-Policy', 'no-referrer');
    context.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  });
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
  app.route(
    '/api',
    apiRoutes(options.repository, {
      jobs,
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
