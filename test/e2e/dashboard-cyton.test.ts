/**
 * The dashboard in a real browser (headless Chromium) on `headsetd serve --device cyton:<pty>`,
 * the board emulated over a socat pseudo-terminal pair: the Signals panel lists the Cyton's eight
 * channels under the montage's names and draws their traces as frames come (the traces
 * canvas changes from one screenshot to the next, its description counts 8 channels); the Device
 * panel hides motors and LEDs and says the device has none, and says so when the board is lost
 * (the dongle unplugged) until it is back; nothing the board lacks is asked for.
 * `HEADSETD_SCREENSHOTS=<dir>` keeps a screenshot of the Signals panel.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SerialLink } from '../../src/device/cyton/link.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import { type Browser, failedLoads, haveChromium, keepScreenshot, openBrowser } from '../support/browser.js';
import { CytonEmulator } from '../support/cyton-emulator.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const LABELS = ['Fp1', 'Fp2', 'C3', 'C4', 'P7', 'P8', 'O1', 'O2'];

describe.skipIf(!haveChromium)('dashboard on an OpenBCI Cyton (emulated; headless Chromium)', () => {
  let pair: PtyPair | undefined;
  let boardLink: SerialLink | undefined;
  let emulator: CytonEmulator | undefined;
  let service: Service | undefined;
  let browser: Browser | undefined;

  function rig(): { service: Service; browser: Browser } {
    if (service === undefined || browser === undefined)
      throw new Error('the service or browser did not start');
    return { service, browser };
  }

  beforeAll(async () => {
    pair = await ptyPair();
    boardLink = await openCytonPort(pair.board);
    emulator = new CytonEmulator(boardLink);
    [service, browser] = await Promise.all([
      startService({ args: ['--device', `cyton:${pair.host}`] }),
      openBrowser(),
    ]);
    await browser.page.goto(`${service.url}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    emulator?.stop();
    await boardLink?.close();
    await pair?.kill();
  });

  test('Signals: the Cyton’s channels by their montage names, and their traces drawn as frames come', async () => {
    const { service, browser } = rig();
    const { page } = browser;
    await page.click('a[data-panel=signals]');
    const canvas = page.getByTestId('traces');
    await page.getByText('EEG socket connected').waitFor();
    const idle = await canvas.screenshot();
    await page.getByTestId('signals-start').click();
    // The channel picks name the montage's channels, once frames have come.
    await expect
      .poll(() => page.locator('.channel-picks label.pick').allTextContents(), { timeout: 15_000 })
      .toEqual(LABELS);
    const first = await eventually(
      async () => {
        const shot = await canvas.screenshot();
        return shot.equals(idle) ? undefined : shot;
      },
      15_000,
      'the first traces',
    );
    await eventually(
      async () => ((await canvas.screenshot()).equals(first) ? undefined : true),
      15_000,
      'the traces to move',
    );
    expect(await canvas.getAttribute('aria-label')).toMatch(/^EEG traces of 8 channels, /);
    // The spectrum offers the same channels.
    expect(await page.locator('.spectrum-head select option').allTextContents()).toEqual(LABELS);
    await eventually(
      async () =>
        (await json(`${service.url}/system/status`)).body.status.eeg.samples >= 2 * 250 ? true : undefined,
      15_000,
      '2 s of EEG',
    );
    await keepScreenshot(page, 'cyton-signals');
    await page.click('a[data-panel=device]');
    await page.locator('[data-testid=acquisition-state]', { hasText: 'acquiring' }).waitFor();
    await page.getByTestId('acquisition-stop').click();
    await page.locator('[data-testid=acquisition-state]', { hasText: 'idle' }).waitFor();
  });

  test('Device: no motors, LEDs, orientation or battery shown, and the page says why', async () => {
    const { page } = rig().browser;
    await page.click('a[data-panel=device]');
    await page.getByTestId('missing-parts').waitFor();
    expect(await page.getByTestId('missing-parts').textContent()).toBe(
      'This device has no motors, LEDs, IMU, battery, peripheral bus: those controls are not shown.',
    );
    expect(await page.locator('h2', { hasText: 'LEDs' }).count()).toBe(0);
    expect(await page.locator('h2', { hasText: 'Orientation' }).count()).toBe(0);
    expect(await page.locator('.meter', { hasText: 'battery' }).count()).toBe(0);
    await page.click('a[data-panel=impedance]');
    await page.getByTestId('impedance-start').waitFor();
    expect(await page.getByTestId('optimize').count()).toBe(0);
    expect(await page.locator('table.motors').count()).toBe(0);
  });

  test('the dongle unplugged: the Device panel says degraded and that the board was lost; plugged back: healthy', async () => {
    const { page } = rig().browser;
    if (pair === undefined) throw new Error('no pty pair');
    await page.click('a[data-panel=device]');
    await page.getByText('healthy', { exact: true }).waitFor();
    emulator?.stop();
    await boardLink?.close();
    await pair.kill();
    const { service } = rig();
    await eventually(
      async () => {
        // A poll that cannot reach the service says why: once it failed with only `fetch failed`.
        const { exitCode, signalCode } = service.process;
        if (exitCode !== null || signalCode !== null)
          throw new Error(
            `the service exited (code ${exitCode}, signal ${signalCode}); its stderr: ${service.stderr.slice(-20).join('\n')}`,
          );
        return (await json(`${service.url}/system/status`)).body.status.lost !== undefined;
      },
      15_000,
      'the service to see the board lost',
    );
    // The page reads healthz every 5 s.
    await page.getByText('degraded', { exact: true }).waitFor({ timeout: 20_000 });
    // The health problem, in the Host card (the Live events list shows the event too).
    const problem = page.locator('p.warning', { hasText: /^The OpenBCI Cyton \(.*\) was lost: / });
    await problem.waitFor();
    expect(await problem.textContent()).toContain('headsetd tries to reopen it every 1 s');
    await pair.restart();
    boardLink = await openCytonPort(pair.board);
    emulator = new CytonEmulator(boardLink);
    await page.getByText('healthy', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await page.locator('p.warning').count()).toBe(0);
  }, 90_000);

  test('nothing the board lacks was asked for: no not_supported answer, no page error', () => {
    const { browser } = rig();
    expect(browser.errors).toEqual([]);
    expect(failedLoads(browser, 409)).toEqual([]);
  });
});
