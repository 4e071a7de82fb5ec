/**
 * The dashboard's Outputs panel in headless Chromium against a real headsetd on port 0: it lists the
 * running streams' websocket nodes, connects to the one picked from the page (its origin is the
 * service's, which a node's port admits), and draws its frames by their channels' names: band
 * power as bars grouped by band, SSVEP scores as bars with the top frequency marked and the
 * detected one large, anything else as a table. What it shows is compared, frame by frame (the
 * `seq` it shows), with the frames a Node WebSocket client reads from the same port: the values
 * within the display's rounding, and each unit the frame's `units` (µV when it has none).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Browser, haveChromium, keepScreenshot, openBrowser } from '../support/browser.js';
import { json, type Service, startService } from '../support/service.js';
import { tryUpgrade } from '../support/upgrade.js';
import { eventually } from '../support/wait.js';

interface Frame {
  seq: number;
  channels: string[];
  data: (number | string)[][];
  units?: string[];
}

const STREAMS = {
  band: {
    id: '0d5e3c1a-7b2f-4e8a-9c6d-1f2a3b4c5d6e',
    name: 'Band power',
    channelNames: [
      'O1.theta',
      'O1.alpha',
      'O1.beta',
      'O2.theta',
      'O2.alpha',
      'O2.beta',
      'Cz.theta',
      'Cz.alpha',
      'Cz.beta',
    ],
    amplitudes: [20],
  },
  ssvep: {
    id: '1e6f4d2b-8c3a-4f9b-8d7e-2a3b4c5d6e7f',
    name: 'SSVEP',
    channelNames: ['score.8.57Hz', 'score.12Hz', 'frequency.top', 'frequency.detected'],
    amplitudes: [0.5],
  },
  plain: {
    id: '2f7a5e3c-9d4b-4a0c-9e8f-3b4c5d6e7f8a',
    name: 'Plain EEG',
    channelNames: ['Cz', 'Pz'],
    amplitudes: [30],
  },
} as const;

type Which = keyof typeof STREAMS;

/** Frames a Node client read from each node's port, by seq. */
const received: Record<Which, Map<number, Frame>> = { band: new Map(), ssvep: new Map(), plain: new Map() };
const clients: WebSocket[] = [];

/** The value of a frame's last row (the newest), as a number. */
function newest(frame: Frame, channel: string): number {
  const c = frame.channels.indexOf(channel);
  expect(c, `channel ${channel} in ${frame.channels.join(', ')}`).toBeGreaterThanOrEqual(0);
  return Number(frame.data[frame.data.length - 1]?.[c]);
}

function unitOf(frame: Frame, channel: string): string {
  return frame.units?.[frame.channels.indexOf(channel)] ?? 'µV';
}

/** The shown number equals the value to the decimals shown. */
function expectShown(text: string, value: number, what: string): void {
  const number = /^-?\d+(?:\.(\d+))?/.exec(text.trim());
  expect(number, `${what}: '${text}'`).not.toBeNull();
  const decimals = number?.[1]?.length ?? 0;
  expect(Math.abs(Number(number?.[0]) - value), `${what}: '${text}' for ${value}`).toBeLessThanOrEqual(
    0.5 * 10 ** -decimals + 1e-9,
  );
}

/** Creates and starts a stream of a generator and a websocket node; answers the node's port. */
async function runStream(
  service: Service,
  s: { id: string; name: string; channelNames: readonly string[]; amplitudes: readonly number[] },
  websocket: Record<string, unknown>,
  auth: Record<string, string> = {},
): Promise<number> {
  const headers = { 'content-type': 'application/json', ...auth };
  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      id: s.id,
      meta: { name: s.name },
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          // Four frames a second, like a processing node's windows; the slow sine stays positive
          // for the test's first seconds, the noise makes every channel differ.
          config: {
            sampleRate: 4,
            amplitudes: s.amplitudes,
            frequencies: [0.05],
            noise: (s.amplitudes[0] ?? 1) / 10,
            channels: s.channelNames.length,
            channelNames: s.channelNames,
            seed: 7,
          },
        },
        { id: 'ws', executable: 'websocket', config: websocket },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const started = await json(`${service.url}/stream/streams/${s.id}/signal`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ signal: 'start' }),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return eventually(
    async () => {
      const status = await json(`${service.url}/stream/streams/${s.id}/status`, { headers });
      return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws')?.port;
    },
    20_000,
    `the port of ${s.name}'s websocket node`,
  );
}

describe.skipIf(!haveChromium)('dashboard: outputs (headless Chromium)', () => {
  let service: Service;
  let browser: Browser;

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService({ args: ['--seed', '5'] }), openBrowser()]);
    for (const [which, s] of Object.entries(STREAMS) as [Which, (typeof STREAMS)[Which]][]) {
      const port = await runStream(service, s, { port: 0 });
      const client = new WebSocket(`ws://127.0.0.1:${port}/`);
      client.on('message', (data) => {
        const frame = JSON.parse((data as Buffer).toString('utf8')) as Frame;
        received[which].set(frame.seq, frame);
      });
      await new Promise<void>((resolve, reject) => {
        client.once('open', resolve);
        client.once('error', reject);
      });
      clients.push(client);
    }
    await browser.page.goto(`${service.url}/#outputs`);
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.terminate();
    await browser.close();
    await service.stop();
  });

  /**
   * Picks the stream's node in the panel, then waits for it to show frames the Node client read
   * too, and hands two of them (the second a later frame) with what the page showed.
   */
  async function shownFrames(
    which: Which,
    kind: string,
  ): Promise<{ frame: Frame; texts: Record<string, string>; top: string[]; detected: string }[]> {
    const { page } = browser;
    await page.click(`[data-output="${STREAMS[which].id}/ws"]`);
    await page
      .locator(`[data-testid=output-view][data-kind=${kind}]`)
      .waitFor()
      .catch(async (e: unknown) => {
        // What the panel says (its socket's state) and the console (a refused connection) tell why.
        const shows = await page.locator('main').textContent();
        throw new Error(
          `${String(e)}\nThe panel shows: ${shows}\nConsole: ${browser.consoleErrors.join(' | ')}`,
        );
      });
    const seen: { frame: Frame; texts: Record<string, string>; top: string[]; detected: string }[] = [];
    await eventually(
      async () => {
        // One evaluation reads the frame number and every value of the same render.
        const shown = await page.evaluate(() => {
          const view = document.querySelector('[data-testid=output-view]');
          const texts: Record<string, string> = {};
          view?.querySelectorAll('[data-testid=output-value]').forEach((e) => {
            texts[e.getAttribute('data-channel') ?? ''] = e.textContent;
          });
          const top = Array.from(
            view?.querySelectorAll('.bar[data-top=true]') ?? [],
            (e) => e.getAttribute('data-channel') ?? '',
          );
          const detected = view?.querySelector('[data-testid=ssvep-detected]')?.textContent ?? '';
          return { seq: Number(view?.getAttribute('data-seq')), texts, top, detected };
        });
        const frame = received[which].get(shown.seq);
        if (frame === undefined || seen.some((s) => s.frame.seq === shown.seq)) return undefined;
        seen.push({ frame, texts: shown.texts, top: shown.top, detected: shown.detected });
        return seen.length >= 2 ? true : undefined;
      },
      20_000,
      `two frames of ${which} shown that the Node client read`,
    );
    return seen;
  }

  test('band power: bars per channel grouped by band, each value and unit those of the frame', async () => {
    const { page } = browser;
    await page.locator('[data-testid=output-list] [data-output]').nth(2).waitFor();
    expect(await page.locator('[data-testid=output-list] [data-output]').count()).toBe(3);
    for (const { frame, texts } of await shownFrames('band', 'band-power')) {
      expect(Object.keys(texts).sort()).toEqual([...STREAMS.band.channelNames].sort());
      for (const channel of STREAMS.band.channelNames) {
        const text = texts[channel] ?? '';
        expectShown(text, newest(frame, channel), channel);
        const unit = unitOf(frame, channel);
        expect(text.replace(/^-?[\d.]+/, '').trim(), channel).toBe(unit === '1' ? '' : unit);
      }
    }
    const groups = page.locator('[data-band]');
    expect(await groups.evaluateAll((e) => e.map((g) => g.getAttribute('data-band')))).toEqual([
      'theta',
      'alpha',
      'beta',
    ]);
    expect(await groups.first().locator('.bar-label').allTextContents()).toEqual(['O1', 'O2', 'Cz']);
    await keepScreenshot(page, 'outputs');
  });

  test('SSVEP: a bar per frequency, the top one marked, the detected frequency or none', async () => {
    for (const { frame, texts, top, detected } of await shownFrames('ssvep', 'ssvep')) {
      const scores = ['score.8.57Hz', 'score.12Hz'];
      expect(Object.keys(texts).sort()).toEqual([...scores].sort());
      for (const channel of scores) expectShown(texts[channel] ?? '', newest(frame, channel), channel);
      // `frequency.top` names the best score's frequency; where it names none of the bars (the
      // generator's values are no real analysis), the best score is marked.
      const topHz = newest(frame, 'frequency.top');
      const named = scores.filter((c) => Math.abs(Number.parseFloat(c.slice(6)) - topHz) < 0.006);
      const best = scores.reduce((a, b) => (newest(frame, b) > newest(frame, a) ? b : a));
      expect(top).toEqual(named.length > 0 ? named : [best]);
      const detectedHz = newest(frame, 'frequency.detected');
      if (detectedHz > 0) {
        expect(detected).toMatch(/ Hz$/);
        expectShown(detected, detectedHz, 'frequency.detected');
      } else {
        expect(detected).toBe('none');
      }
    }
    await browser.page.getByTestId('ssvep-detections').waitFor();
    await keepScreenshot(browser.page, 'outputs-ssvep');
  });

  test('any other frame: a table of channel, latest value and unit', async () => {
    const { page } = browser;
    for (const { frame, texts } of await shownFrames('plain', 'table')) {
      expect(Object.keys(texts)).toEqual(['Cz', 'Pz']);
      for (const channel of ['Cz', 'Pz']) {
        expectShown(texts[channel] ?? '', newest(frame, channel), channel);
        expect(await page.locator(`tr[data-channel=${channel}] td`).nth(2).textContent()).toBe(
          unitOf(frame, channel),
        );
      }
    }
    expect(browser.errors).toEqual([]);
  });
});

/**
 * Beyond loopback: the service on `::ffff:127.0.0.1` (the IPv4 loopback address in IPv6 form, which
 * headsetd counts as beyond loopback, so nothing leaves this machine) and a node listening there
 * too, which therefore requires the token: the page, given the token at its prompt, reads the
 * node with `?token=`, which a client without it is refused.
 */
describe.skipIf(!haveChromium)('dashboard: outputs beyond loopback (headless Chromium)', () => {
  let service: Service;
  let browser: Browser;
  let token: string;
  let port: number;
  const stream = { ...STREAMS.plain, id: '3a8b6f4d-0e5c-4b1d-8f9a-4c5d6e7f8a9b', name: 'Beyond loopback' };

  beforeAll(async () => {
    [service, browser] = await Promise.all([
      startService({ args: ['--host', '::ffff:127.0.0.1'] }),
      openBrowser(),
    ]);
    token = readFileSync(path.join(service.dataDir, 'token'), 'utf8').trim();
    port = await runStream(
      service,
      stream,
      { port: 0, host: '::ffff:127.0.0.1' },
      { authorization: `Bearer ${token}` },
    );
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await service.stop();
  });

  test('the page sends the token it was given to the node, which refuses a client without it', async () => {
    const refused = await tryUpgrade(`ws://127.0.0.1:${port}/`);
    if (refused.kind === 'open') refused.socket.terminate();
    expect(refused.kind === 'refused' ? refused.status : 'open').toBe(401);

    const { page } = browser;
    await page.goto(`http://127.0.0.1:${service.port}/#outputs`);
    await page.getByTestId('token-input').fill(token);
    await page.getByTestId('token-input').press('Enter');
    await page.click(`[data-output="${stream.id}/ws"]`);
    const view = page.locator('[data-testid=output-view][data-kind=table]');
    await view.waitFor().catch(async (e: unknown) => {
      const shows = await page.locator('main').textContent();
      throw new Error(
        `${String(e)}\nThe panel shows: ${shows}\nConsole: ${browser.consoleErrors.join(' | ')}`,
      );
    });
    expect(await page.getByTestId('output-state').textContent()).toBe('connected');
    expect(await view.locator('tr[data-channel]').count()).toBe(2);
  });
});
