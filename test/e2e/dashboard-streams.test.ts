/**
 * The dashboard's Streams and Recordings panels in headless Chromium against a real headsetd on
 * port 0: a document typed into the YAML editor is checked by the service as it is typed (a
 * broken one shows the service's error at its line), created, drawn as its graph, started, and its
 * metrics and a node's log follow live; a recording of the device's EEG is started and stopped in
 * one click each, with a marker, and its file appears in the list.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Browser, haveChromium, keepScreenshot, openBrowser } from '../support/browser.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const ID = '6b1f7a52-9d3e-4c1a-8f2b-0a9e8d7c6b5a';

/** Line 9 is the filter's config; a low-pass at 400 Hz is above the generator's Nyquist frequency. */
function documentWith(filterConfig: string): string {
  return [
    `id: ${ID}`,
    'meta: { name: Sine through a filter }',
    'nodes:',
    '  - id: gen',
    '    executable: signal-generator',
    '    config: { sampleRate: 250, amplitudes: [40, 10], frequencies: [10, 3], channels: 2 }',
    '  - id: filter',
    '    executable: filter',
    `    config: ${filterConfig}`,
    '  - id: log',
    '    executable: logger',
    'pipes:',
    '  - { id: p1, source: gen, destination: filter }',
    '  - { id: p2, source: filter, destination: log }',
    '',
  ].join('\n');
}

describe.skipIf(!haveChromium)('dashboard: streams and recordings (headless Chromium)', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService({ args: ['--seed', '3'] }), openBrowser()]);
    await browser.page.goto(`${service.url}/#streams`);
  });

  afterAll(async () => {
    await browser.close();
    await service.stop();
  });

  async function type(text: string): Promise<void> {
    const { page } = browser;
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  }

  test("the editor shows the service's error at its line, then creates the stream", async () => {
    const { page } = browser;
    const verdict = page.getByTestId('yaml-verdict');
    await type(documentWith('{ highpass: 1, lowpass: 400 }'));
    await expect.poll(() => verdict.textContent(), { timeout: 10_000 }).toMatch(/^line 9: .*lowpass/);
    // The error is marked on line 9 of the editor itself.
    await page.locator('.cm-line').nth(8).locator('.cm-lintRange-error').waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(1);

    // A YAML error is placed at the line the service names.
    await type(documentWith('{ highpass: 1, lowpass: [40 }'));
    await expect.poll(() => verdict.textContent(), { timeout: 10_000 }).toMatch(/^line (9|10): /);

    await type(documentWith('{ highpass: 1, lowpass: 40 }'));
    await expect
      .poll(() => verdict.textContent(), { timeout: 10_000 })
      .toBe('The service accepts this document.');
    expect((await json(`${service.url}/stream/streams`)).body.streams).toEqual([]);
    await page.getByTestId('yaml-save').click();
    await page
      .getByTestId('yaml-message')
      .filter({ hasText: `Created ${ID}.` })
      .waitFor();
    expect((await json(`${service.url}/stream/streams/${ID}`)).status).toBe(200);
  });

  test("its graph shows nodes, ports and pipes; started, its metrics and a node's log follow live", async () => {
    const { page } = browser;
    const graph = page.getByTestId('stream-graph');
    await graph.locator('[data-node=log]').waitFor();
    expect(await graph.locator('[data-node]').count()).toBe(3);
    expect(await graph.locator('[data-pipe]').count()).toBe(2);
    expect(await graph.locator('.port').allTextContents()).toEqual(['out', 'in', 'out', 'in']);

    await page.getByTestId('signal-start').click();
    await page.getByTestId('stream-state').filter({ hasText: 'running' }).waitFor();
    await graph.locator('[data-node=log][data-state=running]').waitFor();
    const items = graph.locator('[data-node=log] [data-testid=node-items]');
    const first = await eventually(
      async () => {
        const text = (await items.textContent()) ?? '';
        return /^[1-9]\d* frames/.test(text) ? text : undefined;
      },
      10_000,
      'frames through the logger',
    );
    await eventually(
      async () => ((await items.textContent()) !== first ? true : undefined),
      10_000,
      'the metrics to move',
    );
    await expect
      .poll(() => graph.locator('[data-pipe=p2] .edge-label').first().textContent())
      .toMatch(/^p2: [1-9]\d* sent/);

    await graph.locator('[data-node=log]').click();
    await page.getByTestId('node-logs').filter({ hasText: 'in: seq=' }).waitFor();
    await keepScreenshot(page, 'streams');
  });

  test('Recordings: one click records the device EEG, a marker lands in it, and the file is listed', async () => {
    const { page } = browser;
    await page.click('a[data-panel=recordings]');
    await page.getByTestId('record-start').click();
    const state = page.getByTestId('recording-state');
    await state.filter({ hasText: /recording eeg-\d{8}-\d{6}\.bdf/ }).waitFor();
    const name = ((await state.textContent()) ?? '').replace('recording ', '').trim();

    await page.getByTestId('marker-text').fill('eyes closed');
    await page.getByTestId('marker-text').press('Enter');
    await page.getByTestId('recording-message').filter({ hasText: 'Marker "eyes closed" added.' }).waitFor();

    // Five seconds of EEG reach the recorder (its samples, counted by the service), then stop.
    const recorder = async (): Promise<number | undefined> => {
      const streams = (await json(`${service.url}/stream/streams`)).body.streams as {
        id: string;
        meta: { tags?: string[] };
      }[];
      const stream = streams.find((s) => s.meta.tags?.includes('dashboard-recording') === true);
      if (stream === undefined) return undefined;
      const status = (await json(`${service.url}/stream/streams/${stream.id}/status`)).body.status;
      return status.nodes.find((n: { id: string }) => n.id === 'rec')?.metrics.samplesProcessed as number;
    };
    await eventually(
      async () => (((await recorder()) ?? 0) >= 5 * 250 ? true : undefined),
      15_000,
      '5 s recorded',
    );
    await page.getByTestId('record-stop').click();
    await state.filter({ hasText: 'not recording' }).waitFor();

    const row = page.locator(`[data-recording="${name}"]`);
    await row.waitFor();
    expect(await row.textContent()).toMatch(/19 @ 250 Hz/);
    const listed = (await json(`${service.url}/system/recordings`)).body.recordings as {
      name: string;
      durationSeconds: number;
      complete: boolean;
    }[];
    const file = listed.find((r) => r.name === name);
    expect(file?.complete).toBe(true);
    expect(file?.durationSeconds).toBeGreaterThanOrEqual(5);
    // The recording's stream is gone with the stop; only the stream of the first test remains.
    expect(
      (await json(`${service.url}/stream/streams`)).body.streams.map((s: { id: string }) => s.id),
    ).toEqual([ID]);
    await keepScreenshot(page, 'recordings');
  });

  test('the page raised no error', () => {
    expect(browser.errors).toEqual([]);
  });
});
