import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ELECTRODES, MIXED_CASE } from '../../../src/core/electrodes.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('impedance history, snapshots and head map', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp();
  });
  afterEach(async () => {
    await s.close();
  });

  it('keeps session readings in the history, filtered by session, range and channels', async () => {
    const a = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/start',
        payload: { channels: ['O1', 'O2'] },
      }),
    );
    await s.app.inject({ method: 'GET', url: `/electrodes/impedance?sessionId=${String(a.sessionId)}` });
    const b = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/start',
        payload: { channels: 'Fp1' },
      }),
    );
    await s.app.inject({ method: 'GET', url: `/electrodes/impedance?sessionId=${String(b.sessionId)}` });

    const all = json(
      await s.app.inject({ method: 'GET', url: '/electrodes/impedance/history?timeRange=15m' }),
    );
    expect(all.channels).toEqual(['O1', 'O2', 'Fp1']);
    expect(all.timeline).toHaveLength(2);
    const one = json(
      await s.app.inject({
        method: 'GET',
        url: `/electrodes/impedance/history?sessionId=${String(a.sessionId)}&channels=o1`,
      }),
    );
    expect(one.channels).toEqual(['O1']);
    const timeline = one.timeline as { timestamp: number; values: Record<string, number> }[];
    expect(timeline).toHaveLength(1);
    expect(Object.keys(timeline[0]?.values ?? {})).toEqual(['O1']);

    const rebuilt = s.dataDir;
    await s.close({ keepData: true });
    s = await systemApp({ dataDir: rebuilt });
    const after = json(
      await s.app.inject({ method: 'GET', url: '/electrodes/impedance/history?timeRange=24h' }),
    );
    expect(after.timeline).toHaveLength(2);
  });

  it('refuses unknown time ranges and channels', async () => {
    const range = await s.app.inject({ method: 'GET', url: '/electrodes/impedance/history?timeRange=2h' });
    expect(range.statusCode).toBe(422);
    expect(errorOf(range).details?.path).toBe('/querystring/timeRange');
    const channel = await s.app.inject({
      method: 'GET',
      url: '/electrodes/impedance/history?channels=O1,Q7',
    });
    expect(channel.statusCode).toBe(422);
  });

  it('takes and lists snapshots of all 21 electrodes', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/snapshot',
      payload: { name: 'before gel', notes: 'dry' },
    });
    expect(res.statusCode).toBe(200);
    const snapshot = json(res).snapshot as {
      id: string;
      name: string;
      timestamp: string;
      values: Record<string, number>;
    };
    expect(snapshot).toMatchObject({ name: 'before gel', notes: 'dry' });
    expect(Object.keys(snapshot.values)).toEqual(ELECTRODES.map((e) => MIXED_CASE[e]));
    expect(new Date(snapshot.timestamp).toISOString()).toBe(snapshot.timestamp);
    const list = json(await s.app.inject({ method: 'GET', url: '/electrodes/impedance/snapshots' }));
    expect((list.snapshots as { id: string }[]).map((x) => x.id)).toEqual([snapshot.id]);
    const noName = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/snapshot',
      payload: { notes: 'x' },
    });
    expect(noName.statusCode).toBe(400);
    expect(errorOf(noName).details?.path).toBe('/name');
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const busy = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/snapshot',
      payload: { name: 'x' },
    });
    expect(busy.statusCode).toBe(409);
  });

  it('draws an SVG head map with every electrode label, value and the legend', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/electrodes/impedance/map?format=svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('image/svg+xml');
    for (const e of ELECTRODES) expect(res.body).toContain(`>${MIXED_CASE[e]}</text>`);
    expect(res.body).toContain('MΩ');
    for (const legend of ['Excellent', 'Good', 'Acceptable', 'Poor', 'Very poor'])
      expect(res.body).toContain(legend);
    // Retracted electrodes are very poor: red in the default scheme, reddish purple in the colour-blind one.
    expect(res.body).toContain('#D62728');
    const colorblind = await s.app.inject({
      method: 'GET',
      url: '/electrodes/impedance/map?colorScheme=colorblind',
    });
    expect(colorblind.body).toContain('#CC79A7');
    expect(colorblind.body).not.toContain('#D62728');
  });

  it('renders a PNG head map of 640×776 pixels', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/electrodes/impedance/map?format=png' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const png = res.rawPayload;
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // IHDR: width and height are the first two big-endian words of the first chunk's data.
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(640);
    expect(png.readUInt32BE(20)).toBe(776);
    expect(png.length).toBeGreaterThan(20_000);
    const bad = await s.app.inject({ method: 'GET', url: '/electrodes/impedance/map?format=gif' });
    expect(bad.statusCode).toBe(422);
  });
});
