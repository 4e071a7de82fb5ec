/**
 * A headless Chromium for the dashboard's end-to-end tests: Debian's `chromium` (installed by
 * .ci/run), driven by playwright-core, which downloads nothing. Each test file gets one browser
 * with a fresh profile, kept off the network (no background requests, no component updates): the
 * only traffic is to the service on loopback.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HEADSETD_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser is installed; the tests say so and skip when it is not. */
export const haveChromium = existsSync(CHROMIUM);

export interface Browser {
  page: Page;
  context: BrowserContext;
  /** Page errors seen so far (a broken page shows here first). */
  errors: string[];
  /**
   * Messages the page's console showed as errors, with their URL: a resource that failed to load
   * among them. (An API refusal the page shows on purpose, a 4xx, is one too.)
   */
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'headsetd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 1000 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Under a test's own timeout, so that a wait that fails names its locator.
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  return {
    page,
    context,
    errors,
    consoleErrors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where the panels' screenshots go: `HEADSETD_SCREENSHOTS=docs/images` keeps them (the ones the
 * docs show); otherwise nothing is written.
 */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.HEADSETD_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  await page.screenshot({ path: path.resolve(dir, `dashboard-${name}.png`), fullPage: true });
}
