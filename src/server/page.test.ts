/**
 * The page in real headless Chromium against a real server: upload a Who&When trace, run the
 * offline method, find the highlighted step; and a hostile trace that must render inert.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserUnavailable, launchBrowser } from '../../test/browser.js';
import { HAS_SHARED_DATA, ROOT, WHO_AND_WHEN } from '../../test/paths.js';
import { DEFAULT_WEB_ROOT } from './app.js';
import { startServer } from './serve.js';

const skip =
  browserUnavailable() ||
  (existsSync(DEFAULT_WEB_ROOT) ? false : `${DEFAULT_WEB_ROOT} missing: run npm run build`);

describe('web page in Chromium', { skip }, () => {
  let home = '';
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-page-'));
    server = await startServer({ home, host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('uploads a Who&When trace, runs the offline method and highlights the blamed step', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.state.url);
    const trace = HAS_SHARED_DATA
      ? join(WHO_AND_WHEN, 'Hand-Crafted/8.json')
      : join(ROOT, 'examples/who-and-when-hc-6.json');
    await page.setInputFiles('#file', trace);
    await page.waitForSelector('article.step');
    await page.click('#run');
    const blamed = page.locator('article.step.blamed');
    await blamed.waitFor();
    assert.equal(await blamed.count(), 1);
    const step = Number(await blamed.getAttribute('data-step'));
    assert.match(
      (await page.locator('#result .verdict').textContent()) ?? '',
      new RegExp(`step ${step}`),
    );
    assert.ok(await blamed.isVisible());
    const box = await blamed.boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 900, 'scrolled into view');
    assert.ok((await page.locator('#result .candidates li').count()) >= 1);
    await page.close();
  });

  it('fits a 390-pixel phone: nothing wider than the screen, the verdict reachable', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(server.state.url);
    await page.setInputFiles('#file', join(ROOT, 'examples/who-and-when-hc-6.json'));
    await page.waitForSelector('article.step');
    await page.click('#run');
    await page.locator('#result .verdict').waitFor();
    // Evaluated in the page; typed by hand (the tests compile without the DOM library).
    const width = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
          .document.documentElement.scrollWidth,
    );
    assert.ok(width <= 390, `the page is ${width} px wide`);
    const verdict = await page.locator('#result .verdict').boundingBox();
    const conversation = await page.locator('#conversation').boundingBox();
    assert.ok(verdict && conversation && verdict.y < conversation.y, 'the verdict comes first');
    await page.close();
  });

  it('renders a trace with <script> and <img onerror> as text', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(server.state.url);
    const hostile = {
      question: '<img src=x onerror="window.__pwned=1">',
      history: [
        { role: 'user', content: '<script>window.__pwned = 2; alert("x")</script>' },
        {
          role: 'assistant',
          name: '<img src=x onerror=alert(3)>',
          content: '<img src=x onerror="window.__pwned=3">',
        },
      ],
    };
    const file = join(home, 'hostile.json');
    await writeFile(file, JSON.stringify(hostile));
    await page.setInputFiles('#file', file);
    await page.waitForSelector('article.step');
    await page.click('#run');
    await page.waitForSelector('#result .reason');
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      undefined,
    );
    assert.deepEqual(dialogs, []);
    assert.equal(await page.locator('#conversation img, #result img').count(), 0);
    assert.match(
      (await page.locator('#conversation').textContent()) ?? '',
      /<script>window.__pwned = 2/,
    );
    await page.close();
  });
});
