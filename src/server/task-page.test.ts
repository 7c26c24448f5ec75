/**
 * The task view in headless Chromium against a real server (its spectrum a job in a worker): the
 * Runs view lists the task, whose view shows the runs as a pass/fail strip, the units table with
 * the researcher's stale price first, and the latest failed run with that step marked; its link
 * opens the run in Analyse with the step marked there too, and junk in that link's query is ignored.
 * Analyse offers the methods that read a task's runs (combined, spectrum) for a recorded run of a
 * task, and for no other trace.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  pageUnavailable,
  launchBrowser,
  screenshot,
  seriousViolations,
} from '../../test/browser.js';
import { pricingRun } from '../attribution/spectrum/__fixtures__/runs.js';
import { databaseLocation } from '../config.js';
import { openDatabase } from '../store/database.js';
import { RunStore } from '../store/runs.js';
import { startServer } from './serve.js';

const skip = pageUnavailable();

/** Failing (f) and passing (p) runs of the task, in the order they are stored. */
const PLAN = 'fppfpfpf';
const TASK = 'nightly pricing/eu';

describe('task view in Chromium', { skip }, () => {
  let home = '';
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-task-page-'));
    const db = await openDatabase(databaseLocation(home));
    const runs = new RunStore(db);
    for (const [index, kind] of [...PLAN].entries()) {
      const run = pricingRun(index, kind === 'f' ? 'researcher' : 'none');
      await runs.save({ ...run, metadata: { ...run.metadata, task: TASK } });
    }
    await db.close();
    server = await startServer({ home, host: '127.0.0.1', port: 0, workers: 1 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('opens a task from the Runs view: its strip, its units and the marked step', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(new URL('/runs', server.state.url).href);
    const taskRow = page.locator('#runs-tasks tbody tr').first();
    await taskRow.waitFor();
    assert.deepEqual((await taskRow.locator('td').allTextContents()).slice(0, 4), [
      TASK,
      '8',
      '4',
      '4',
    ]);
    await taskRow.locator('a').click();
    await page.waitForURL(/\/tasks\/nightly%20pricing%2Feu$/);
    await page.locator('#task-steps').waitFor({ timeout: 30_000 });

    const marks = page.locator('#task-strip a.run-mark');
    assert.equal(await marks.count(), PLAN.length);
    const classes = await marks.evaluateAll((links) =>
      links.map((link) => (link.classList.contains('failure') ? 'f' : 'p')),
    );
    assert.equal(classes.join(''), PLAN);
    assert.equal(await page.locator('#task-strip a.studied').getAttribute('data-run'), 'run-7');

    const top = await page.locator('#task-units tbody tr').first().locator('td').allTextContents();
    assert.equal(top[1], 'Researcher');
    assert.equal(top[4], 'in 4 of 4 failing and 0 of 4 passing');
    assert.match(
      (await page.locator('#task-conclusion').textContent()) ?? '',
      /Researcher, step 2/,
    );

    const marked = page.locator('#task-steps article.step.suspicious.top');
    assert.equal(await marked.count(), 1);
    assert.equal(await marked.getAttribute('data-step'), '2');
    assert.match((await marked.textContent()) ?? '', /archived catalogue page/);
    assert.deepEqual(await seriousViolations(page), []);
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await seriousViolations(page), [], 'in dark mode');
    await screenshot(page, 'task-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'task');

    // Another failed run studied, chosen on the page.
    await page.selectOption('#task-failed', 'run-0');
    await page.waitForURL(/\?failed=run-0$/);
    await page.locator('#task-strip a.studied[data-run="run-0"]').waitFor();

    // Its links open it in Analyse with the spectrum's steps marked, the most suspicious focused.
    assert.match(
      (await page.locator('#task-strip a.studied').getAttribute('href')) ?? '',
      /\?suspicious=2(,\d+)*$/,
    );
    await page.getByRole('link', { name: 'Open run-0 in Analyse' }).click();
    await page.waitForURL(/\/traces\/[^/?]+\?suspicious=2(,\d+)*$/);
    const suspicious = page.locator('#conversation article.step.suspicious');
    await suspicious.first().waitFor();
    assert.equal(await suspicious.first().getAttribute('data-step'), '2');
    assert.equal(
      await suspicious.first().getAttribute('aria-label'),
      "step 2, Researcher, most suspicious in the task's runs",
    );
    assert.equal(
      await page.locator('#conversation article.step.focused').getAttribute('data-step'),
      '2',
    );
    assert.equal(
      await page.locator('#timeline .mark.suspicious').first().getAttribute('aria-label'),
      "suspicious in the task's runs: step 2",
    );
    assert.deepEqual(await seriousViolations(page), [], 'Analyse with the marks');
    await screenshot(page, 'task-analyse');

    // The URL is anyone's input: junk in it is ignored, steps the run lacks too.
    const trace = new URL(page.url()).pathname;
    await page.goto(
      new URL(`${trace}?suspicious=x,-1,2.5,,9999999,99999999999,2,2`, server.state.url).href,
    );
    await page.locator('#conversation article.step.suspicious').first().waitFor();
    assert.deepEqual(
      await page
        .locator('#conversation article.step.suspicious')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-step'))),
      ['2'],
    );
    await page.close();
  });

  it("offers a task's methods for a recorded run of it, and for no other trace", async () => {
    const page = await browser.newPage();
    const api = async <Body>(path: string, init?: RequestInit) =>
      (await (await fetch(new URL(path, server.state.url), init)).json()) as Body;
    const { run } = await api<{ run: { traceId: string } }>('/api/runs/run-0');
    await page.goto(new URL(`/traces/${run.traceId}`, server.state.url).href);
    await page.locator('article.step').first().waitFor();
    const combined = page.locator('#method option[value="combined"]');
    assert.equal(await combined.getAttribute('hidden'), null);
    assert.match((await combined.getAttribute('title')) ?? '', /with the runs of task nightly/);
    await page.selectOption('#method', 'combined');
    assert.equal(await page.locator('#model-row').isHidden(), true, 'no model to enter');
    await page.click('#run');
    const blamed = page.locator('#conversation article.step.blamed');
    await blamed.waitFor({ timeout: 30_000 });
    assert.equal(await blamed.getAttribute('data-step'), '2');
    const { analyses } = await api<{ analyses: { method: string; result: { agent: string } }[] }>(
      `/api/analyses?trace=${run.traceId}`,
    );
    assert.deepEqual(
      analyses.map(({ method, result }) => [method, result.agent]),
      [['combined', 'Researcher']],
    );
    // Its candidates carry its own scores, not probabilities: shown as scores.
    assert.match((await page.locator('#result ol.candidates').textContent()) ?? '', /score/);
    assert.doesNotMatch((await page.locator('#result ol.candidates').textContent()) ?? '', /%/);
    assert.deepEqual(await seriousViolations(page), [], 'Analyse with the combined verdict');
    await screenshot(page, 'analyse-combined');

    // A trace that is no recorded run, opened from History without reloading the page: the task's
    // methods are withdrawn, offline is chosen, and there is no model to enter.
    await api('/api/traces?name=alone.json', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: JSON.stringify(pricingRun(20, 'researcher')),
    });
    await page.click('a[data-tab="history"]');
    await page.click('#history a:has-text("alone.json")');
    await page.locator('#conversation .trace-header:has-text("run-20")').waitFor();
    assert.equal(await combined.getAttribute('hidden'), '');
    assert.equal(await page.locator('#method').inputValue(), 'offline');
    assert.equal(await page.locator('#model-row').isHidden(), true);
    await page.close();
  });
});
