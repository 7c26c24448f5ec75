/** Headless Chromium for page tests: Debian's chromium driven by playwright-core (no browser download). */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './paths.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why page tests cannot run here, or false when they can. */
export function browserUnavailable(): string | false {
  return existsSync(CHROMIUM)
    ? false
    : `${CHROMIUM} not found: apt-get install chromium (CI's .ci/run does)`;
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
