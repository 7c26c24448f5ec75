/**
 * The page in real headless Chromium against a real server: loading, attributing, navigating a
 * run (URLs, timeline, keys), labels, recorded errors, uploads of every kind, history, a phone
 * screen, accessibility (axe-core), and a hostile trace that must render inert. Screenshots go to
 * test-results/page.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  pageUnavailable,
  launchBrowser,
  screenshot,
  seriousViolations,
} from '../../test/browser.js';
import { FIXTURES, ROOT } from '../../test/paths.js';
import type { Attribution } from '../attribution/method.js';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { startServer } from './serve.js';

const skip = pageUnavailable();

const HC_6 = join(ROOT, 'examples/who-and-when-hc-6.json');

/** Values read in the page; typed by hand (the tests compile without the DOM library). */
const inPage = <Result>(page: Page, expression: string) => page.evaluate<Result>(expression);

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

  /** Opens the page, loads `file` and attributes it; returns the verdict's step. */
  async function attribute(page: Page, file: string): Promise<number> {
    await page.goto(server.state.url);
    await page.setInputFiles('#file', file);
    await page.waitForURL(/\/traces\//);
    await page.waitForSelector('article.step');
    await page.click('#run');
    await page.waitForURL(/\/analyses\//);
    const blamed = page.locator('article.step.blamed');
    await blamed.waitFor();
    return Number(await blamed.getAttribute('data-step'));
  }

  it('attributes a trace, keeps the verdict at its own URL through reload, back and forward', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const step = await attribute(page, HC_6);
    assert.match(
      (await page.locator('#result .verdict').textContent()) ?? '',
      new RegExp(`step ${step}`),
    );
    const box = await page.locator('article.step.blamed').boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 900, 'the blamed step is scrolled into view');
    assert.ok((await page.locator('#result .candidates li').count()) >= 1);
    assert.ok(
      (await inPage<number>(page, `CSS.highlights.get('evidence')?.size ?? 0`)) >= 1,
      'the quoted evidence is highlighted in the run',
    );
    await screenshot(page, 'analysis');
    const url = page.url();

    await page.reload();
    await page.locator('article.step.blamed').waitFor();
    assert.equal(Number(await page.locator('article.step.blamed').getAttribute('data-step')), step);

    await page.goBack();
    await page.waitForURL(/\/traces\//);
    await page.locator('#result .verdict').waitFor({ state: 'detached' });
    assert.equal(await page.locator('article.step.blamed').count(), 0);
    await page.goForward();
    await page.waitForURL(url);
    await page.locator('article.step.blamed').waitFor();

    // A link works elsewhere: a second browser context opening it sees the same analysis.
    const other = await browser.newContext();
    const shared = await other.newPage();
    await shared.goto(url);
    await shared.locator('article.step.blamed').waitFor();
    assert.equal(
      await shared.locator('#result .verdict').textContent(),
      await page.locator('#result .verdict').textContent(),
    );
    await other.close();
    await page.close();
  });

  it('navigates a run: timeline marks, keys, agent filter and search; label match is shown', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const verdict = await attribute(page, HC_6);
    // The example is labelled: the panel says whether the verdict agrees.
    assert.equal(await page.locator('#result .match').count(), 2);
    await page.keyboard.press('l');
    assert.equal(await page.locator('article.step.focused').getAttribute('data-step'), '5');
    assert.equal(
      await page.locator('article.step.blamed').getAttribute('data-step'),
      String(verdict),
      'inspecting another step leaves the verdict marked',
    );
    await page.keyboard.press('j');
    assert.equal(await page.locator('article.step.focused').getAttribute('data-step'), '6');
    await page.keyboard.press('v');
    assert.equal(
      await page.locator('article.step.focused').getAttribute('data-step'),
      String(verdict),
    );
    await page.keyboard.press('k');
    await page.click('.timeline-marks .mark.verdict');
    assert.equal(
      await page.locator('article.step.focused').getAttribute('data-step'),
      String(verdict),
    );

    await page.selectOption('#agent-filter', 'WebSurfer');
    const visibleAgents = await page
      .locator('article.step:visible .step-head .agent')
      .allTextContents();
    assert.ok(visibleAgents.length > 0 && visibleAgents.every((agent) => agent === 'WebSurfer'));
    await page.selectOption('#agent-filter', '');

    // The page's first Tab stop skips the whole run to the verdict.
    assert.equal(
      await page.evaluate(
        `document.querySelector('a[href], button, input, select, textarea, summary').textContent`,
      ),
      'Skip to the verdict',
    );
    await page.focus('a.skip');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement.id'), 'result');

    await page.keyboard.press('/');
    await page.keyboard.type('Mission Bay');
    assert.match((await page.locator('#search-count').textContent()) ?? '', /^\d+ steps?$/);
    await page.keyboard.press('Enter');
    assert.match((await page.locator('#search-count').textContent()) ?? '', /^1 of \d+$/);
    const found = page.locator('article.step.focused');
    assert.match((await found.textContent()) ?? '', /Mission Bay/i);
    await page.close();
  });

  it("marks recorded errors, unfolds them and reaches them with n; shows a speaking turn's tool calls", async () => {
    const trace = {
      question: 'What is 6 x 7?',
      ground_truth: '42',
      history: [
        { role: 'user', name: 'user', content: 'What is 6 x 7?' },
        {
          role: 'assistant',
          name: 'Coder',
          content: '```python\nprint(6 * 8)\n```',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'run_python', arguments: '{"file":"a.py"}' },
            },
          ],
        },
        {
          role: 'user',
          name: 'Computer_terminal',
          content: 'exitcode: 1 (execution failed)\nCode output: NameError\nline 2\nline 3',
        },
        { role: 'assistant', name: 'Coder', content: 'The answer is 48. TERMINATE' },
      ],
    };
    const file = join(home, 'errors.json');
    await writeFile(file, JSON.stringify(trace));
    const page = await browser.newPage();
    await page.goto(server.state.url);
    await page.setInputFiles('#file', file);
    await page.waitForSelector('article.step');
    const marked = page.locator('article.step.has-error');
    assert.equal(await marked.count(), 1);
    assert.equal(await marked.locator('.badge.error').textContent(), 'error');
    assert.equal(await marked.locator('details.tool-output').getAttribute('open'), '');
    assert.equal(await page.locator('.timeline-errors span').count(), 1);
    assert.equal(
      await page.locator('article.step[data-step="1"] .tool-calls').textContent(),
      '→ run_python({"file":"a.py"})',
    );
    await page.keyboard.press('n');
    assert.equal(await page.locator('article.step.focused').getAttribute('data-step'), '2');
    // The listed calls are found by search.
    await page.locator('#search').fill('a.py');
    assert.equal(await page.locator('#search-count').textContent(), '1 step');
    await page.close();
  });

  it("quotes a tracing source's recorded error and highlights it; a long quote wraps in the panel", async () => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    // The Langfuse fixture's failing search, its recorded status made a long unbroken JSON body.
    const error = `HTTP 429 from search API: {"error":{"code":"rate_limited","retry_after_seconds":30,"request_id":"req_8f2c4e1a9b7d6c5e3f1a2b4c"}}`;
    const fixture = readFileSync(join(FIXTURES, 'formats/langfuse-trace-export.json'), 'utf8');
    const file = join(home, 'langfuse-long-error.json');
    await writeFile(file, fixture.replace('"HTTP 429 from search API"', JSON.stringify(error)));
    await attribute(page, file);
    assert.ok(
      ((await page.locator('#result p.reason').textContent()) ?? '').includes(error),
      'the recorded error is quoted',
    );
    assert.ok((await inPage<number>(page, `CSS.highlights.get('evidence')?.size ?? 0`)) >= 1);
    assert.ok(
      await inPage<boolean>(
        page,
        `(() => { const r = document.querySelector('#result'); return r.scrollWidth <= r.clientWidth; })()`,
      ),
      'nothing in the result panel is wider than the panel',
    );
    await page.close();
  });

  it('leads an unfamiliar verdict with what to do and the three most likely agents', async () => {
    const page = await browser.newPage();
    await attribute(page, join(FIXTURES, 'formats/otlp-genai-semconv.json'));
    const result = page.locator('#result');
    assert.match(
      (await result.locator('.badge.guess').textContent()) ?? '',
      /^A guess on a system it was not trained on: faultline verify proves it by replay; 20 labelled runs \(faultline adapt or train --base\) make it yours\.$/,
    );
    const agents = await result.locator('.agent-candidates li').allTextContents();
    assert.ok(agents.length >= 2 && agents.length <= 3, agents.join(' | '));
    for (const agent of agents) assert.match(agent, /^\S.* \d+%$/);
    assert.match((await result.textContent()) ?? '', /unseen systems 17%–97% right/);
    assert.equal(await result.locator('.verdict .agent').count(), 0, 'no one bold name');
    await page.close();
  });

  it('says when the log records the run as a success', async () => {
    const page = await browser.newPage();
    // The fixture's second tau-bench result (reward 1), alone in a file.
    const results = JSON.parse(
      readFileSync(join(FIXTURES, 'formats/tau-bench-results.json'), 'utf8'),
    ) as unknown[];
    const file = join(home, 'tau-bench-success.json');
    await writeFile(file, JSON.stringify(results[1]));
    await attribute(page, file);
    assert.match(
      (await page.locator('#result').textContent()) ?? '',
      /The log records this run as a success/,
    );
    await page.close();
  });

  it('marks a verdict faultline verify proved by replay', async () => {
    const example = JSON.parse(readFileSync(HC_6, 'utf8')) as { history: { content: string }[] };
    example.history[0]!.content += ' (a verified run)';
    const uploaded = await fetch(new URL('/api/traces?name=verified-run.json', server.state.url), {
      method: 'POST',
      body: JSON.stringify(example),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(uploaded.status, 201);
    const [trace] = ((await uploaded.json()) as { traces: { id: string }[] }).traces;
    const analysed = await fetch(new URL(`/api/traces/${trace!.id}/analyses`, server.state.url), {
      method: 'POST',
      body: JSON.stringify({ method: 'offline' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(analysed.status, 201);
    const offline = ((await analysed.json()) as { analysis: { id: string; result: Attribution } })
      .analysis;
    const result = offline.result;
    // What `faultline verify` stores beside the trace (src/cli/commands/verify.ts).
    const db = await openDatabase(join(home, 'faultline.db'));
    let verifiedId: string;
    try {
      verifiedId = (
        await new Repository(db).saveAnalysis(
          trace!.id,
          { method: 'offline', verify: { top: 3, budget: 3, replays: 2 } },
          {
            ...result,
            verified: {
              step: result.step!,
              agent: result.agent!,
              replays: 2,
              run: 'r-replay.json',
            },
          },
          1,
        )
      ).id;
    } finally {
      await db.close();
    }
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(new URL(`/analyses/${verifiedId}`, server.state.url).href);
    const badge = page.locator('#result .badge.verified');
    await badge.waitFor();
    assert.equal(
      await badge.textContent(),
      `✓ Verified by replay: with step ${result.step} (${result.agent}) fixed, the run passed its check (2 replays).`,
    );
    // The plain offline verdict of the same trace has no such mark.
    await page.goto(new URL(`/analyses/${offline.id}`, server.state.url).href);
    await page.locator('article.step.blamed').waitFor();
    assert.equal(await page.locator('#result .badge.verified').count(), 0);
    await page.close();
  });

  it('reads an AG2 logs.db and several files at once, and clears the screen after a failed analysis or upload', async () => {
    const page = await browser.newPage();
    await page.goto(server.state.url);
    await page.setInputFiles('#file', [
      join(FIXTURES, 'formats/ag2-runtime-logging.db'),
      join(FIXTURES, 'formats/crewai-events.jsonl'),
    ]);
    await page.waitForSelector('article.step');
    assert.match(
      (await page.locator('#conversation .trace-header').textContent()) ?? '',
      /ag2-sqlite/,
    );
    assert.match((await page.locator('#status').textContent()) ?? '', /2 traces loaded/);

    // A failed analysis leaves no old verdict on screen, and speaks of the page's controls.
    await page.click('#run');
    await page.locator('article.step.blamed').waitFor();
    await page.selectOption('#method', 'all-at-once');
    await page.click('#run');
    await page.locator('#status.error').waitFor();
    assert.equal(await page.locator('article.step.blamed').count(), 0);
    assert.equal(await page.locator('#result .verdict').count(), 0);
    assert.match(
      (await page.locator('#result').textContent()) ?? '',
      /enter a model as provider:model/,
    );
    await page.selectOption('#method', 'offline');

    const bad = join(home, 'bad.json');
    await writeFile(bad, '{"foo": 1}');
    await page.setInputFiles('#file', bad);
    await page.locator('#status.error').waitFor();
    assert.match(
      (await page.locator('#status').textContent()) ?? '',
      /bad\.json.*choose one under/,
    );
    assert.doesNotMatch((await page.locator('#status').textContent()) ?? '', /--format/);
    assert.equal(await page.locator('article.step').count(), 0, 'no stale trace');
    await page.close();
  });

  it('offers examples on the empty page; a span-based run shows span timing, model and tokens', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.state.url);
    await page.click('.examples button:has-text("OpenTelemetry GenAI spans")');
    await page.waitForURL(/\/traces\//);
    await page.waitForSelector('article.step');
    const meta = await page.locator('.span-meta').allTextContents();
    assert.ok(
      meta.some((line) => /\d+ (ms|s) · .+ · \d+ → \d+ tokens · span /.test(line)),
      meta.join('\n'),
    );
    await screenshot(page, 'otel-example');
    await page.close();
  });

  it('stores a label a person sets, and lists traces once in History with filter and delete', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await attribute(page, HC_6);
    await page.click('.teach-box summary');
    await page.fill('#teach-step', '3');
    await page.dispatchEvent('#teach-step', 'change');
    await page.click('.teach button:has-text("Save as label")');
    await page.locator('#result .label:has-text("Your label")').waitFor();
    await page.reload();
    await page.locator('#result .label:has-text("Your label")').waitFor();
    assert.equal(await page.locator('article.step.labelled').getAttribute('data-step'), '3');

    await page.click('nav a[data-tab="history"]');
    await page.waitForURL(/\/history$/);
    const rows = page.locator('#history tbody tr');
    await rows.first().waitFor();
    const hc6Rows = page.locator('#history tbody tr', { hasText: 'who-and-when-hc-6.json' });
    assert.equal(await hc6Rows.count(), 1, 'one row per content');
    assert.match((await hc6Rows.textContent()) ?? '', /\(yours\)/);
    await screenshot(page, 'history');
    const total = await rows.count();
    // The filter runs in the server's database; the status says when its page has arrived.
    await page.fill('#history-filter', 'crewai');
    await page.locator('#history-status', { hasText: '“crewai”' }).waitFor();
    assert.ok((await rows.count()) < total);
    await page.fill('#history-filter', '');
    await page.locator('#history-status', { hasText: /^\d+ traces?$/ }).waitFor();
    assert.equal(await rows.count(), total);
    await hc6Rows.locator('button:has-text("Delete")').click();
    // Polled from here: a string predicate would be evaluated in the page, which its CSP forbids.
    for (let tries = 0; (await rows.count()) !== total - 1; tries += 1) {
      assert.ok(tries < 100, 'the deleted row disappears');
      await page.waitForTimeout(50);
    }
    await page.close();
  });

  it('reaches the verdict of a 2,000-step run with one key', async () => {
    const history = Array.from({ length: 2000 }, (_, index) => ({
      role: 'assistant',
      name: `Agent_${index % 4}`,
      content: `Step ${index}: ${'working on the task and reporting figures. '.repeat(4)}`,
    }));
    const file = join(home, 'long.json');
    await writeFile(file, JSON.stringify({ question: 'Long run', history }));
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const verdict = await attribute(page, file);
    await page.keyboard.press('Home');
    await page.keyboard.press('v');
    const focused = page.locator('article.step.focused');
    assert.equal(await focused.getAttribute('data-step'), String(verdict));
    assert.ok(await focused.isVisible());
    // The steps come a chunk at a time; filtering as soon as the run opens builds the rest first.
    const traceId = await inPage<string>(
      page,
      `fetch('/api' + location.pathname).then((answer) => answer.json()).then((body) => body.analysis.traceId)`,
    );
    await page.goto(`${server.state.url}traces/${traceId}`);
    await page.locator('article.step').first().waitFor();
    await page.selectOption('#agent-filter', 'Agent_3');
    assert.equal(await page.locator('article.step').count(), 2000);
    assert.equal(await page.locator('article.step:not([hidden])').count(), 500);
    // Leaving a run while its steps are still being built stops them: none lands on the start page.
    await page.goto(`${server.state.url}traces/${traceId}`);
    await page.locator('article.step').first().waitFor();
    await page.click('h1 a[data-route]');
    await page.locator('.examples button').first().waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.locator('article.step').count(), 0);
    await page.close();
  });

  it('lists an evaluation run per trace, filters the wrong ones and opens one at its verdict', async () => {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'dist/cli/index.js'),
        'eval',
        HC_6,
        join(ROOT, 'examples/who-and-when-ag-58.json'),
        '--method',
        'offline,first-agent',
        '--include-train',
        '-o',
        join(home, 'report.html'),
      ],
      { env: { ...process.env, FAULTLINE_HOME: home }, stdio: 'ignore' },
    );
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(new URL('/evaluations', server.state.url).href);
    await page.click('#evaluations ul a');
    await page.waitForURL(/\/evaluations\/.+/);
    const rows = page.locator('table.traces tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 4, 'two traces under two methods');
    // Filter and sort run in the server; the status says when the filtered page has arrived.
    await page.check('#wrong-only');
    await page.locator('#evaluation-status', { hasText: 'wrong only' }).waitFor();
    const wrong = await rows.count();
    assert.ok(wrong < 4);
    await page.uncheck('#wrong-only');
    await page.locator('#evaluation-status', { hasText: /traces$/ }).waitFor();
    await page.click('table.traces th button:has-text("method")');
    assert.equal(await page.locator('table.traces th[aria-sort="ascending"]').count(), 1);
    await screenshot(page, 'evaluation');
    await rows.first().locator('a').click();
    await page.waitForURL(/\/analyses\//);
    await page.locator('article.step.blamed').waitFor();

    // The HTML report's own filter and sort run under its strict CSP (the script is hash-allowed).
    const blocked: string[] = [];
    page.on('console', (line) => {
      if (line.type() === 'error') blocked.push(line.text());
    });
    await page.goto(`file://${join(home, 'report.html')}`);
    assert.equal(await page.locator('#trace-count').textContent(), '4 of 4 rows');
    await page.check('#wrong-only');
    assert.equal(await page.locator('#trace-count').textContent(), `${wrong} of 4 rows`);
    await page.click('#traces th:has-text("method")');
    assert.equal(await page.locator('#traces th[data-sort="ascending"]').count(), 1);
    await page.locator('#traces tbody tr:visible a').first().click();
    // The link's hashchange opens its details (an event, so waited for).
    await page.locator('details[open]').waitFor();
    assert.equal(await page.locator('details[open]').count(), 1);
    assert.deepEqual(blocked, []);
    await page.close();
  });

  it('has no serious accessibility violations on the main views (axe-core)', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto(server.state.url);
    await page.locator('.examples button').first().waitFor();
    const found: Record<string, string[]> = { start: await seriousViolations(page) };
    await attribute(page, HC_6);
    found.analysis = await seriousViolations(page);
    await page.click('nav a[data-tab="history"]');
    await page.locator('#history table').waitFor();
    found.history = await seriousViolations(page);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goBack();
    await page.locator('article.step.blamed').waitFor();
    found['analysis, dark'] = await seriousViolations(page);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.click('nav a[data-tab="evaluations"]');
    await page.click('#evaluations ul a');
    await page.locator('table.traces').waitFor();
    found.evaluations = await seriousViolations(page);
    await screenshot(page, 'analysis-dark');
    assert.deepEqual(found, {
      start: [],
      analysis: [],
      history: [],
      'analysis, dark': [],
      evaluations: [],
    });
    await context.close();
  });

  it('fits a 390-pixel phone: nothing wider than the screen, the verdict reachable', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await attribute(page, HC_6);
    await page.locator('#result .verdict').waitFor();
    const width = await inPage<number>(page, 'document.documentElement.scrollWidth');
    assert.ok(width <= 390, `the page is ${width} px wide`);
    const verdict = await page.locator('#result .verdict').boundingBox();
    const conversation = await page.locator('#conversation').boundingBox();
    assert.ok(verdict && conversation && verdict.y < conversation.y, 'the verdict comes first');
    await screenshot(page, 'phone');
    await page.close();
  });

  it('pages History past 50 traces, and the filter counts every match', async () => {
    const example = JSON.parse(readFileSync(HC_6, 'utf8')) as { history: { content: string }[] };
    for (let index = 0; index < 55; index += 1) {
      const trace = structuredClone(example);
      trace.history[0]!.content += ` (paging run ${index})`;
      const response = await fetch(
        new URL(`/api/traces?name=paging-${index}.json`, server.state.url),
        {
          method: 'POST',
          body: JSON.stringify(trace),
          headers: { 'content-type': 'application/octet-stream' },
        },
      );
      assert.equal(response.status, 201);
    }
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(new URL('/history', server.state.url).href);
    const rows = page.locator('#history tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 50);
    const pager = page.locator('nav.pager[aria-label="History pages"]');
    const total = Number(/of (\d+)/.exec((await pager.textContent()) ?? '')?.[1]);
    assert.ok(total >= 55, `${total} traces in all`);
    await pager.locator('button:has-text("Next")').click();
    await pager.locator('span', { hasText: `51–${total} of ${total}` }).waitFor();
    assert.equal(await rows.count(), total - 50);
    await page.fill('#history-filter', 'paging-');
    await page.locator('#history-status', { hasText: '55 traces match' }).waitFor();
    assert.equal(await rows.count(), 50, 'the first page of the matches');
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
    assert.equal(await inPage<number | undefined>(page, 'window.__pwned'), undefined);
    assert.deepEqual(dialogs, []);
    assert.equal(await page.locator('#conversation img, #result img').count(), 0);
    assert.match(
      (await page.locator('#conversation').textContent()) ?? '',
      /<script>window.__pwned = 2/,
    );
    await page.close();
  });
});
