/**
 * A headless Chromium for the dashboard's end-to-end tests: Debian's `chromium` (installed by
 * .ci/run), driven by playwright-core, which downloads nothing. One browser serves the whole run:
 * the global set-up launches it in the background ({@link startBrowserServer}) and each test file
 * opens a context of its own in it (fresh storage, cookies and cache: nothing one file did is seen
 * by another), so the run pays Chromium's start (2.5–4.5 s of CPU) once rather than once per file
 * (the seven dashboard files: 58.4 and 58.3 s of CPU with a browser each, 50.8 and 50.3 s shared).
 * A file run without the global set-up, or when the shared browser failed to start, launches a
 * browser of its own with a fresh profile. Either is kept off the network (no background requests,
 * no component updates): the only traffic is to the service on loopback.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, type BrowserServer, chromium, type Page } from 'playwright-core';
import { eventually } from './wait.js';

export const CHROMIUM = process.env.HEADSETD_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser is installed; the tests say so and skip when it is not. */
export const haveChromium = existsSync(CHROMIUM);

/** Names the file the run's shared browser writes its endpoint into (or `error: …`). */
export const BROWSER_ENDPOINT_VARIABLE = 'HEADSETD_TEST_BROWSER';

const LAUNCH = {
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
};
const VIEWPORT = { width: 1400, height: 1000 };

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

/**
 * For the global set-up: launches the run's browser without waiting for it, and names the file
 * its endpoint will be written to in {@link BROWSER_ENDPOINT_VARIABLE}, for the test workers.
 * Undefined where Chromium is not installed. Stopping it closes the browser.
 */
export function startBrowserServer(): { stop(): Promise<void> } | undefined {
  if (!haveChromium) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'headsetd-browser-'));
  const file = path.join(dir, 'endpoint');
  process.env[BROWSER_ENDPOINT_VARIABLE] = file;
  const launched: Promise<BrowserServer | undefined> = chromium.launchServer(LAUNCH).then(
    (server) => {
      writeFileSync(file, server.wsEndpoint());
      return server;
    },
    (error: unknown) => {
      writeFileSync(file, `error: ${(error as Error).message}`);
      return undefined;
    },
  );
  return {
    async stop() {
      await (await launched)?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A context in the run's shared browser; undefined when there is none (or it failed to start). */
async function sharedContext(): Promise<{ context: BrowserContext; close(): Promise<void> } | undefined> {
  const file = process.env[BROWSER_ENDPOINT_VARIABLE];
  if (file === undefined || file === '') return undefined;
  const endpoint = await eventually(
    () => existsSync(file) && readFileSync(file, 'utf8'),
    30_000,
    'the shared browser',
  );
  if (endpoint === '' || endpoint.startsWith('error: ')) return undefined;
  const browser = await chromium.connect(endpoint);
  const context = await browser.newContext({ viewport: VIEWPORT });
  return {
    context,
    async close() {
      await context.close();
      // A connected browser's close only disconnects: the run's browser stays for other files.
      await browser.close();
    },
  };
}

/** A browser of this file's own, with a fresh profile. */
async function ownContext(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'headsetd-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { ...LAUNCH, viewport: VIEWPORT });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function openBrowser(): Promise<Browser> {
  const opened = (await sharedContext()) ?? (await ownContext());
  const { context } = opened;
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
    close: () => opened.close(),
  };
}

/**
 * The console's failed loads answered with `status` (Chromium writes "Failed to load resource: the
 * server responded with a status of 409 (Conflict) (URL)"): matched on the status, not on any
 * "409" in the line, which a URL's port can hold.
 */
export function failedLoads(browser: Browser, status: number): string[] {
  const said = new RegExp(`responded with a status of ${status}\\b`);
  return browser.consoleErrors.filter((line) => said.test(line));
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
