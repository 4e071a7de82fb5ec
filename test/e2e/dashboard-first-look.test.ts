/**
 * What a person sees first on the dashboard, in headless Chromium against a real headsetd on port
 * 0: the page loads without a console error (the browser's own /favicon.ico request answered
 * 404); after "Create stream" the editor says the truth about a document whose stream now exists
 * (it said "The service accepts this document" while the service refused its taken id); the
 * stream's card is titled by the stream's name, its UUID beside it; the traces have a time axis
 * and the spectrum a dB scale with its reference; a stream made with the maker's SDK is one the
 * dashboard shows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Browser, haveChromium, openBrowser } from '../support/browser.js';
import { SDK_TIMEOUT, sdkCall } from '../support/instinct-client.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const ID = '3f2a9c41-7e5b-4d8a-9b1c-6e0f2d4a8c17';
const NAME = 'Alpha through a filter';
const DOCUMENT = [
  `id: ${ID}`,
  `meta: { name: ${NAME} }`,
  'nodes:',
  '  - { id: gen, executable: signal-generator, config: { sampleRate: 250, amplitudes: [20], frequencies: [10] } }',
  '  - { id: filter, executable: filter, config: { highpass: 1, lowpass: 40 } }',
  '  - { id: log, executable: logger }',
  'pipes:',
  '  - { id: p1, source: gen, destination: filter }',
  '  - { id: p2, source: filter, destination: log }',
  '',
].join('\n');

describe.skipIf(!haveChromium)('dashboard: first look (headless Chromium)', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService({ args: ['--seed', '5'] }), openBrowser()]);
  });

  afterAll(async () => {
    await browser.close();
    await service.stop();
  });

  test('loading the dashboard logs no console error (favicon.ico answered 404)', async () => {
    const { page } = browser;
    // The icon's request is the last the page makes by itself; waiting for it, not for a quiet
    // network (which the dashboard's polling may not give a busy machine within the deadline).
    const icon = page.waitForResponse((r) => new URL(r.url()).pathname.includes('favicon'), {
      timeout: 60_000,
    });
    await page.goto(`${service.url}/`, { timeout: 60_000 });
    await page.locator('.meter', { hasText: 'battery' }).waitFor({ timeout: 60_000 });
    await icon;
    expect(browser.consoleErrors).toEqual([]);
    // The icon the page links, and the one browsers ask for by themselves.
    const linked = await page.locator('link[rel=icon]').getAttribute('href');
    expect(linked).toBe('/dashboard/favicon.svg');
    for (const url of [`${service.url}${linked}`, `${service.url}/favicon.ico`]) {
      const answer = await fetch(url);
      expect(answer.status, url).toBe(200);
      expect(answer.headers.get('content-type')).toBe('image/svg+xml');
      expect(await answer.text()).toContain('<svg');
    }
  }, 120_000);

  test('after Create stream the editor edits the created stream instead of calling its taken id accepted', async () => {
    const { page } = browser;
    await page.click('a[data-panel=streams]');
    const verdict = page.getByTestId('yaml-verdict');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(DOCUMENT);
    await expect
      .poll(() => verdict.textContent(), { timeout: 10_000 })
      .toBe('The service accepts this document.');
    await page.getByTestId('yaml-save').click();
    await page
      .getByTestId('yaml-message')
      .filter({ hasText: `Created ${ID}.` })
      .waitFor();

    // The service now refuses this document as a create (its id is taken) ...
    const asCreate = await json(`${service.url}/stream/streams/validate`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body: DOCUMENT,
    });
    expect(asCreate.status).toBe(409);
    // ... and the editor says what it is now: the editor of that stream, saved by Replace.
    await expect
      .poll(() => verdict.textContent(), { timeout: 10_000 })
      .toBe('The service accepts this document as the new version of the stream.');
    expect(await page.getByTestId('yaml-title').textContent()).toBe(`Edit ${NAME} ${ID}`);
    expect(await page.getByTestId('yaml-save').textContent()).toBe('Replace stream');
    expect(await page.getByTestId('yaml-message').textContent()).toContain(
      'The editor now edits this stream',
    );
  });

  test("a stream's card is titled by its name, with its UUID beside it", async () => {
    const { page } = browser;
    await expect.poll(() => page.getByTestId('stream-name').textContent()).toBe(NAME);
    expect(await page.getByTestId('stream-id').textContent()).toBe(ID);
    expect(await page.locator(`[data-stream="${ID}"]`).textContent()).toContain(NAME);
  });

  test('the traces have time ticks and the spectrum a dB scale referred to 1 µV²/Hz', async () => {
    const { page } = browser;
    await json(`${service.url}/system/sensors/eeg/stream`, { method: 'POST' });
    await page.click('a[data-panel=signals]');
    const traces = page.getByTestId('traces');
    const ticks = await eventually(
      async () => {
        const value = (await traces.getAttribute('data-time-ticks')) ?? '';
        return value === '' ? undefined : value.split(' ');
      },
      10_000,
      'time ticks under the traces',
    );
    // A 10 s window on a 1400 px page: a labelled tick every 1 or 2 s, in the clock's hh:mm:ss.
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    for (const tick of ticks) expect(tick).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(await traces.getAttribute('aria-label')).toMatch(/^EEG traces of \d+ channels, ±50 µV per lane/);

    const spectrum = page.getByTestId('spectrum');
    const dbTicks = await eventually(
      async () => {
        const value = (await spectrum.getAttribute('data-db-ticks')) ?? '';
        return value === '' ? undefined : value.split(' ');
      },
      15_000,
      'the spectrum after 2 s of EEG',
    );
    // Seven labels, 10 dB apart, over 60 dB.
    const values = dbTicks.map((t) => Number(t.replace('−', '-')));
    expect(values).toHaveLength(7);
    for (let i = 1; i < values.length; i++) expect((values[i] ?? 0) - (values[i - 1] ?? 0)).toBe(10);
    expect(await spectrum.getAttribute('aria-label')).toMatch(/^Power spectrum of \S+ in dB re 1 µV²\/Hz, /);
    await json(`${service.url}/system/sensors/eeg/stream`, { method: 'DELETE' });
  });

  test("a stream created and started with the maker's SDK shows in the dashboard, running, by its name", async () => {
    const { page } = browser;
    const id = randomUUID();
    const [source, log] = [randomUUID(), randomUUID()];
    // As instinct-py sends it (test/support/instinct-client.ts): meta null on a node, a text version.
    await sdkCall(service.url, 'POST', '/streams/stream', {
      json: {
        id,
        nodes: [
          {
            executable: 'signal-generator',
            config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
            id: source,
            meta: null,
          },
          { executable: 'logger', config: {}, id: log, meta: null },
        ],
        pipes: [{ source, destination: log, id: randomUUID() }],
        meta: { name: 'Made with the SDK', version: '1.0.0' },
      },
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    await sdkCall(service.url, 'POST', '/streams/stream/start', {
      json: { streamId: id },
      timeoutMs: SDK_TIMEOUT.default,
    });
    await page.click('a[data-panel=streams]');
    const entry = page.locator(`[data-stream="${id}"]`);
    await expect.poll(() => entry.textContent(), { timeout: 10_000 }).toContain('Made with the SDK');
    await entry.click();
    await expect
      .poll(() => page.getByTestId('stream-state').textContent(), { timeout: 10_000 })
      .toBe('running');
    expect(await page.getByTestId('stream-name').textContent()).toBe('Made with the SDK');
  });

  test('the page raised no error', () => {
    expect(browser.errors).toEqual([]);
  });
});
