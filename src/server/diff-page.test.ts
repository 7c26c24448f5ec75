/**
 * The page's diff view and per-step confidence in real headless Chromium against a real server:
 * "Compare with…" from a trace opens the two-column diff at the divergence; a run with token log
 * probabilities shows each step's confidence and marks the doubted ones on the timeline, and a run
 * without them shows none of it (a run recorded by `faultline proxy --logprobs` as one imported
 * with them, a run recorded without the flag as one without); the method list does not offer
 * diverge for one run alone.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { pageUnavailable, launchBrowser, screenshot } from '../../test/browser.js';
import { recordTeamRun, startHarness } from '../../test/recording-harness.js';
import { lastUserText } from '../../test/wire-server.js';
import { ROOT } from '../../test/paths.js';
import { startServer } from './serve.js';

const skip = pageUnavailable();

const DIVERGE = join(ROOT, 'src/attribution/diverge/__fixtures__');
const LOGPROBS = join(ROOT, 'src/trace/__fixtures__/formats/messages-logprobs.json');
const PLAIN = join(ROOT, 'examples/who-and-when-hc-6.json');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('diff view and confidence in Chromium', { skip }, () => {
  let home = '';
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-diff-page-'));
    server = await startServer({ home, host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  /** Loads `file` on the page; returns the trace's id. */
  async function load(page: Page, file: string): Promise<string> {
    await page.goto(server.state.url);
    await page.setInputFiles('#file', file);
    await page.waitForURL(/\/traces\//);
    await page.waitForSelector('article.step');
    return decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  }

  it('opens the two-column diff from a trace, at the divergence, and swaps the runs', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const passed = await load(page, join(DIVERGE, 'passed.json'));
    const failed = await load(page, join(DIVERGE, 'failed.json'));
    await page.click('details.compare summary');
    await page.click('.compare-list button:has-text("passed.json")');
    await page.waitForURL(/\/diff\?/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('failed'), failed);
    assert.equal(url.searchParams.get('passed'), passed);
    const divergence = page.locator('.diff-row.divergence');
    await divergence.waitFor();
    assert.equal(await divergence.getAttribute('data-failed'), '4');
    assert.equal(await divergence.getAttribute('data-passed'), '4');
    assert.match(
      (await page.locator('.diff-summary').textContent()) ?? '',
      /Diverges at step 4 \(Calculator\)/,
    );
    assert.match((await page.locator('.diff-quotes .failed q').textContent()) ?? '', /1,450/);
    assert.match((await page.locator('.diff-quotes .passed q').textContent()) ?? '', /1,540/);
    assert.equal(await page.locator('.diff-row.reworded').count(), 2);
    await page.evaluate(AXE);
    const violations = await page.evaluate<string[]>(
      `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((result) =>
         result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`,
    );
    assert.deepEqual(violations, []);
    await screenshot(page, 'diff');
    // Reload keeps the view; swapping makes the passing run the failed one.
    await page.reload();
    await page.locator('.diff-row.divergence').waitFor();
    await page.click('button:has-text("Swap runs")');
    await page.waitForURL((next) => next.searchParams.get('failed') === passed);
    await page.locator('.diff-row.divergence').waitFor();
    await page.goBack();
    await page.waitForURL((next) => next.searchParams.get('failed') === failed);
    await page.close();
  });

  it('says "no divergence" for a run compared with itself, and shows the refusal of another task', async () => {
    const page = await browser.newPage();
    const passed = await load(page, join(DIVERGE, 'passed.json'));
    const other = await load(page, join(DIVERGE, 'other-task.json'));
    await page.goto(
      `${server.state.url}diff?failed=${passed}&passed=${passed}`.replace('//diff', '/diff'),
    );
    await page.locator('.diff-summary').waitFor();
    assert.match((await page.locator('.diff-summary').textContent()) ?? '', /No divergence/);
    await page.goto(
      `${server.state.url}diff?failed=${passed}&passed=${other}`.replace('//diff', '/diff'),
    );
    await page.locator('#diff .warning').waitFor();
    assert.match(
      (await page.locator('#diff .warning').textContent()) ?? '',
      /runs of different tasks/,
    );
    await page.close();
  });

  it('shows per-step confidence where the run logged log probabilities, and nothing where not', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await load(page, LOGPROBS);
    const badges = page.locator('article.step .badge.confidence');
    assert.equal(await badges.count(), 3);
    assert.deepEqual(
      await page
        .locator('article.step:has(.badge.confidence.low)')
        .evaluateAll((nodes) =>
          nodes.map((node) => (node as unknown as { dataset: { step: string } }).dataset.step),
        ),
      ['2', '3'],
    );
    assert.match(
      (await page.locator('article[data-step="2"] .badge.confidence').getAttribute('title')) ?? '',
      /least likely: " 38" 9%.*under 50% or a token is under 10%/,
    );
    assert.equal(await page.locator('.timeline-confidence span').count(), 2);
    assert.deepEqual(
      await page
        .locator('#method option')
        .evaluateAll((nodes) =>
          nodes
            .map((node) => (node as unknown as { value: string }).value)
            .filter((name) => name === 'diverge'),
        ),
      [],
    );
    await screenshot(page, 'confidence');
    await load(page, PLAIN);
    assert.equal(await page.locator('.badge.confidence').count(), 0);
    assert.equal(await page.locator('.timeline-confidence').count(), 0);
    await page.close();
  });

  it('shows the confidence of each model call of a run recorded with --logprobs, none without', async () => {
    /** The file of the A, B, A team run recorded through a proxy with these settings. */
    const recorded = async (logprobs: boolean) => {
      // Replies worded apart: the page would open the same content as the run already loaded.
      const harness = await startHarness(
        (request) => ({
          text: `${logprobs ? 'echo' : 'plain'}: ${lastUserText(request.body)}`,
          toolCalls: [],
        }),
        logprobs ? { logprobs } : {},
      );
      try {
        await recordTeamRun(harness, `team-${logprobs}`);
        await harness.recorder.close();
        const file = join(home, `team-${logprobs}.json`);
        await writeFile(file, readFileSync(join(harness.runsFolder, `team-${logprobs}.json`)));
        return file;
      } finally {
        await harness.close();
      }
    };
    const withLogprobs = await recorded(true);
    const without = await recorded(false);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await load(page, withLogprobs);
    // Three model calls, three steps; a reply's figures ("2", "3") are its least likely tokens.
    assert.equal(await page.locator('article.step').count(), 3);
    assert.equal(await page.locator('article.step .badge.confidence').count(), 3);
    assert.match(
      (await page.locator('article[data-step="0"] .badge.confidence').getAttribute('title')) ?? '',
      /over 8 tokens; least likely: "2 " 8%, "3\." 8%/,
    );
    // Only the first reply has a figure, so only it is doubted, and marked on the timeline.
    assert.equal(await page.locator('article.step:has(.badge.confidence.low)').count(), 1);
    assert.equal(await page.locator('.timeline-confidence span').count(), 1);
    await load(page, without);
    assert.equal(await page.locator('article.step').count(), 3);
    assert.equal(await page.locator('.badge.confidence').count(), 0);
    assert.equal(await page.locator('.timeline-confidence').count(), 0);
    await page.close();
  });
});
