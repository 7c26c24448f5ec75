/**
 * The Runs view in headless Chromium: a failed agent run sent as OpenTelemetry spans (the SDK's
 * OTLP/JSON exporter) shows up in the list as it arrives, failed and attributed, with the blamed
 * agent counted for this week and its task listed; its row opens the analysis.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Browser } from 'playwright-core';
import { pageUnavailable, launchBrowser, screenshot } from '../../test/browser.js';
import { tracedRun } from '../../test/otel-run.js';
import { startServer } from './serve.js';

const skip = pageUnavailable();

describe('Runs view in Chromium', { skip }, () => {
  let home = '';
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-runs-page-'));
    server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      workers: 1,
      live: { quietMs: 200 },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('lists a run as it arrives, failed and attributed, and opens its analysis', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(new URL('/runs', server.state.url).href);
    await page.locator('#runs-status').filter({ hasText: 'No runs yet' }).waitFor();
    const sent = await tracedRun(
      new OTLPTraceExporter({ url: new URL('/v1/traces', server.state.url).href }),
      { fail: true },
    );
    // The first page refreshes by itself: no reload.
    const row = page.locator(`tr[data-run="${sent.traceId}"]`);
    await row.filter({ hasText: '@' }).waitFor({ timeout: 20_000 });
    const cells = await row.locator('td').allTextContents();
    // Grouped by its task (its text's fingerprint: the app declares none), listed among the tasks.
    assert.match(cells[1] ?? '', /^task-[0-9a-f]{12}$/);
    await page.locator(`#runs-tasks tr[data-task="${cells[1]}"]`).waitFor();
    assert.equal(cells[2], 'spans (otel)');
    assert.equal(cells[4], 'failed');
    assert.match(cells[5] ?? '', /^\S.* @ \d+$/);
    const blamedAgent = (cells[5] ?? '').split(' @ ')[0]!;
    await page.locator('#runs-blame').waitFor();
    const blame = await page
      .locator('#runs-blame tbody tr')
      .first()
      .locator('td')
      .allTextContents();
    assert.deepEqual(blame.slice(0, 3), [blamedAgent, '1', '0']);
    await screenshot(page, 'runs');
    await row.locator('a').first().click();
    await page.waitForURL(/\/analyses\//);
    await page.locator('article.step.blamed').waitFor();
    await page.close();
  });
});
