/** Headless Chromium for page tests: Debian's chromium driven by playwright-core (no browser download). */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DEFAULT_WEB_ROOT } from '../src/server/app.js';
import { ROOT } from './paths.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why page tests cannot run here, or false when they can. */
export function browserUnavailable(): string | false {
  return existsSync(CHROMIUM)
    ? false
    : `${CHROMIUM} not found: apt-get install chromium (CI's .ci/run does)`;
}

/** Why page tests cannot run here (no Chromium, or the page not built), or false when they can. */
export function pageUnavailable(): string | false {
  return (
    browserUnavailable() ||
    (existsSync(DEFAULT_WEB_ROOT) ? false : `${DEFAULT_WEB_ROOT} missing: run npm run build`)
  );
}

/** Launches headless Chromium with the flags this closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root needs --no-sandbox; the networking flags stop refused outbound connections.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where page tests leave their screenshots (`.ci/run` prints it; CI keeps it as an artefact). */
export const SCREENSHOTS = join(ROOT, 'test-results/page');

/** Saves a full-page screenshot named `name`.png in SCREENSHOTS. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is (WCAG 2 A/AA, best practice). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate<
    { id: string; impact: string; nodes: number; target: string }[]
  >(
    `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] }).then((result) =>
       result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,
         target: String(v.nodes[0] && v.nodes[0].target) })))`,
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.nodes} nodes, e.g. ${violation.target})`);
}
