/**
 * The dashboard in a real browser (headless Chromium) on a live amplifier that has EEG and
 * impedance and nothing else (a fake one, paced on the real clock): the panels show only what the
 * device has (capabilities of GET /system/status) and never ask for a missing part. The Device
 * panel has no battery meter, LED or orientation card and says which parts are missing; EEG
 * acquisition starts from it; the Impedance tab keeps the head map and the impedance check, without
 * the optimisation and the motors.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { systemClock } from '../../src/device/clock.js';
import { openLiveHeadset } from '../../src/device/live/live-headset.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { type Browser, failedLoads, haveChromium, openBrowser } from '../support/browser.js';
import { FakeLiveDriver } from '../support/fake-live-driver.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

describe.skipIf(!haveChromium)(
  'dashboard on a live amplifier with EEG and impedance only (headless Chromium)',
  () => {
    const dataDir = scratchDir('headsetd-dashboard-live');
    let server: RunningServer;
    let browser: Browser;

    beforeAll(async () => {
      const device = await openLiveHeadset(
        new FakeLiveDriver({ clock: systemClock, blockRows: 5, impedanceMs: 50 }),
      );
      server = await startServer({
        workerEntry: STREAM_HOST,
        settings: { ...DEFAULTS, port: 0, dataDir },
        logger: pino({ level: 'silent' }),
        runtime: new FakeRuntime(),
        device,
      });
      browser = await openBrowser();
      await browser.page.goto(`${server.url}/`);
    });

    afterAll(async () => {
      await browser.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('the Device panel has no battery, LED or orientation card, says what is missing, and starts acquisition', async () => {
      const { page } = browser;
      await page.getByTestId('missing-parts').waitFor();
      expect(await page.getByTestId('missing-parts').textContent()).toBe(
        'This device has no motors, LEDs, IMU, battery, peripheral bus: those controls are not shown.',
      );
      expect(await page.locator('h2', { hasText: 'Host' }).count()).toBe(1);
      expect(await page.locator('.meter', { hasText: 'battery' }).count()).toBe(0);
      expect(await page.locator('h2', { hasText: 'LEDs' }).count()).toBe(0);
      expect(await page.locator('h2', { hasText: 'Orientation' }).count()).toBe(0);
      // The amplifier's own channels, and the one it does not play with the reason.
      await page.getByTestId('device-unplayed').waitFor();
      expect(await page.getByTestId('device-channels').textContent()).toMatch(
        /^19 channels: Pz, O1, O2, .*, Fp2, Fz/,
      );
      expect(await page.getByTestId('device-unplayed').textContent()).toContain(
        'not played: AUX (not played in this test)',
      );
      await page.getByTestId('acquisition-start').click();
      await page.locator('[data-testid=acquisition-state]', { hasText: 'acquiring' }).waitFor();
      await page.getByTestId('acquisition-stop').click();
      await page.locator('[data-testid=acquisition-state]', { hasText: 'idle' }).waitFor();
    });

    test('the Impedance tab keeps the head map and the check, without optimisation or motors', async () => {
      const { page } = browser;
      await page.click('a[data-panel=impedance]');
      await page.getByTestId('headmap').locator('svg').waitFor();
      await page.getByTestId('impedance-start').waitFor();
      expect(await page.getByTestId('optimize').count()).toBe(0);
      expect(await page.locator('table.motors').count()).toBe(0);
    });

    test('no part the device lacks was asked for: no not_supported answer, no page error', () => {
      expect(browser.errors).toEqual([]);
      expect(failedLoads(browser, 409)).toEqual([]);
    });
  },
);
