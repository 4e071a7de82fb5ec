/**
 * The dashboard in a real browser (headless Chromium) against a real headsetd on port 0: the
 * Device panel reads the headset, the Impedance panel runs a continuous check (the head map is
 * fetched again with each reading) and an optimisation whose electrodes change colour on the map
 * as their impedance drops, and the Signals panel draws the EEG as it comes (the traces canvas
 * changes from one screenshot to the next, is not painted while no EEG comes, and is painted 30
 * times a second at most while it comes).
 * docs/dashboard.md describes the panels.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Browser, haveChromium, keepScreenshot, openBrowser } from '../support/browser.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

describe.skipIf(!haveChromium)('dashboard: device, signals, impedance (headless Chromium)', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService({ args: ['--seed', '7'] }), openBrowser()]);
    await browser.page.goto(`${service.url}/`);
  });

  afterAll(async () => {
    await browser.close();
    await service.stop();
  });

  const streaming = async (): Promise<boolean> =>
    (await json(`${service.url}/system/status`)).body.status.eeg.streaming as boolean;

  test('the Device panel shows the battery, the acquisition state and the host', async () => {
    const { page } = browser;
    await page.locator('.meter', { hasText: 'battery 80 %' }).waitFor();
    expect(await page.getByTestId('acquisition-state').textContent()).toBe('idle');
    await page.getByText('healthy').waitFor();
  });

  test('Impedance: a continuous check refreshes the head map, an optimisation changes its colours', async () => {
    const { page } = browser;
    await page.click('a[data-panel=impedance]');
    const map = page.getByTestId('headmap');
    const fills = async (): Promise<Record<string, string>> =>
      map.evaluate((element) =>
        Object.fromEntries(
          Array.from(element.querySelectorAll('g[id^="electrode-"]')).map((g) => [
            g.id.slice('electrode-'.length),
            g.querySelector('circle')?.getAttribute('fill') ?? '',
          ]),
        ),
      );
    const subtitle = async (): Promise<string> => (await map.locator('svg text').nth(1).textContent()) ?? '';
    await map.locator('svg').waitFor();
    const before = await fills();
    expect(Object.keys(before)).toHaveLength(21);

    await page.getByTestId('impedance-start').click();
    await page.locator('[data-testid=impedance-session]', { hasText: 'continuous running' }).waitFor();
    const measured = await subtitle();
    await eventually(async () => ((await subtitle()) !== measured ? true : undefined), 10_000, 'a new map');
    await page.getByTestId('impedance-stop').click();
    await page.locator('[data-testid=impedance-session]', { hasText: 'continuous stopped' }).waitFor();

    // Retracted electrodes read megaohms: very poor. Optimising two brings them onto the scalp.
    const retracted = (await fills()).O1;
    expect((await fills()).O2).toBe(retracted);
    await page.getByTestId('optimize-channels').fill('O1, O2');
    await page.getByTestId('optimize-strategy').selectOption('aggressive');
    await page.getByTestId('optimize-target').fill('20');
    await page.getByTestId('optimize').click();
    await page.locator('.progress-table tr', { hasText: 'O1' }).waitFor();
    await page
      .locator('[data-testid=optimize-status]', { hasText: 'completed' })
      .waitFor({ timeout: 30_000 });
    await eventually(
      async () => {
        const now = await fills();
        return now.O1 !== retracted && now.O2 !== retracted ? now : undefined;
      },
      10_000,
      'O1 and O2 to change colour',
    );
    // Electrodes the optimisation did not touch keep theirs.
    expect((await fills()).Fz).toBe(retracted);
    await keepScreenshot(page, 'impedance');
  }, 60_000);

  test('Signals: starting acquisition makes the traces move', async () => {
    const { page } = browser;
    // Every electrode onto the scalp (they stop at their safe force), so that the traces show EEG
    // rather than the noise of inputs in the air.
    await json(`${service.url}/system/motors/position/reset?waitUntilComplete=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ position: 'MAX' }),
    });
    await page.click('a[data-panel=signals]');
    const canvas = page.getByTestId('traces');
    await page.getByText('EEG socket connected').waitFor();
    const idle = await canvas.screenshot();
    // Nothing new, nothing drawn: over 30 animation frames without EEG the traces' canvas is not
    // painted once (it was in every frame, a third of a core for a page left open).
    // (In the page's JavaScript: this project's TypeScript has no DOM types.)
    const painted = await page.evaluate<number>(`new Promise((resolve) => {
      const g = document.querySelector('[data-testid=traces]').getContext('2d');
      const fillRect = g.fillRect.bind(g);
      let count = 0;
      g.fillRect = (...rect) => { count++; fillRect(...rect); };
      let frames = 0;
      const tick = () => {
        if (++frames < 30) return requestAnimationFrame(tick);
        g.fillRect = fillRect;
        resolve(count);
      };
      requestAnimationFrame(tick);
    })`);
    expect(painted).toBe(0);
    await page.getByTestId('signals-start').click();
    await eventually(async () => ((await streaming()) ? true : undefined), 10_000, 'acquisition');
    // Traces drawn: the canvas is no longer the idle one ...
    const first = await eventually(
      async () => {
        const shot = await canvas.screenshot();
        return shot.equals(idle) ? undefined : shot;
      },
      10_000,
      'the first traces',
    );
    // ... and they scroll: a later screenshot differs again.
    await eventually(
      async () => ((await canvas.screenshot()).equals(first) ? undefined : true),
      10_000,
      'the traces to move',
    );
    // While EEG comes (83 frames a second, more than the display's 60), the traces are drawn 30
    // times a second at most: no two draws within 25 ms of each other by the page's frame clock
    // (they were drawn in every animation frame, 16.7 ms apart). A slower machine only spaces
    // them further. Drawn at all: the traces moved above, and at least twice over these frames.
    const drawnAt = await page.evaluate<number[]>(`new Promise((resolve) => {
      const g = document.querySelector('[data-testid=traces]').getContext('2d');
      const fillRect = g.fillRect.bind(g);
      const times = [];
      g.fillRect = (...rect) => {
        // Each draw starts by clearing the whole canvas from its corner.
        if (rect[0] === 0 && rect[1] === 0) times.push(document.timeline.currentTime);
        fillRect(...rect);
      };
      let frames = 0;
      const tick = () => {
        if (++frames < 60) return requestAnimationFrame(tick);
        g.fillRect = fillRect;
        resolve(times);
      };
      requestAnimationFrame(tick);
    })`);
    expect(drawnAt.length).toBeGreaterThanOrEqual(2);
    const gaps = drawnAt.slice(1).map((t, i) => t - (drawnAt[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(25);
    // Two seconds of signal give the spectrum its first block; then the panel is shown as it runs.
    await eventually(
      async () =>
        (await json(`${service.url}/system/status`)).body.status.eeg.samples >= 3 * 250 ? true : undefined,
      15_000,
      '3 s of EEG',
    );
    await keepScreenshot(page, 'signals');
    await page.click('a[data-panel=device]');
    await page.locator('[data-testid=acquisition-state]', { hasText: 'acquiring' }).waitFor();
    await keepScreenshot(page, 'device');
    await page.getByTestId('acquisition-stop').click();
    await eventually(async () => ((await streaming()) ? undefined : true), 10_000, 'acquisition to stop');
  });

  test('the page raised no error', () => {
    expect(browser.errors).toEqual([]);
  });
});
