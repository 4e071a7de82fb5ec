import { describe, expect, it } from 'vitest';
import { AcquisitionOwners, sameEegConfig } from './acquisition-owners.js';
import { DEFAULT_EEG_CONFIG } from './headset.js';

function setup(measuring = false, holder?: string): AcquisitionOwners {
  return new AcquisitionOwners({ measuringImpedance: () => measuring, impedanceHolder: () => holder });
}

describe('AcquisitionOwners', () => {
  it('the first start begins a run; a later owner joins it; the last stop ends it', () => {
    const owners = setup();
    expect(owners.join('client', false)).toBe(false);
    owners.started('client');
    expect(owners.join('streams', true)).toBe(true);
    expect(owners.state(true, DEFAULT_EEG_CONFIG).owners).toEqual(['client', 'streams']);
    expect(owners.leave('client')).toBe(false);
    expect(owners.leave('streams')).toBe(true);
    expect(owners.state(false, DEFAULT_EEG_CONFIG)).toEqual({
      streaming: false,
      owners: [],
      samples: 0,
      config: DEFAULT_EEG_CONFIG,
    });
  });

  it('counts the samples of a run, from zero at each new run', () => {
    const owners = setup();
    owners.started('client');
    owners.count(3);
    owners.count(3);
    expect(owners.sampleCount()).toBe(6);
    expect(owners.state(true, DEFAULT_EEG_CONFIG).samples).toBe(6);
    owners.leave('client');
    expect(owners.sampleCount()).toBe(6);
    owners.started('streams');
    expect(owners.sampleCount()).toBe(0);
  });

  it('a new run is refused while an impedance measurement holds the device, naming whose', () => {
    const owners = setup(true, 'impedance session 7');
    expect(() => owners.join('client', false)).toThrow(
      expect.objectContaining({
        code: 'device_busy',
        details: { heldBy: { activity: 'impedance_measurement', holder: 'impedance session 7' } },
      }),
    );
    // A run already going on (started before the measurement was queued) is joined as before.
    expect(owners.join('client', true)).toBe(true);
  });

  it('a reset is refused while streams hold a running acquisition, unless forced', () => {
    const owners = setup();
    owners.started('streams');
    expect(() => {
      owners.reset(true, undefined);
    }).toThrow(
      expect.objectContaining({
        code: 'device_busy',
        details: { heldBy: expect.objectContaining({ owners: ['streams'] }) },
      }),
    );
    owners.reset(true, true);
    expect(owners.state(false, DEFAULT_EEG_CONFIG).owners).toEqual([]);
    owners.started('client');
    owners.reset(true, undefined);
    expect(owners.state(false, DEFAULT_EEG_CONFIG).owners).toEqual([]);
  });

  it('after close nobody holds acquisition and every start is refused', () => {
    const owners = setup();
    owners.started('client');
    owners.close();
    expect(owners.isClosed()).toBe(true);
    expect(owners.state(false, DEFAULT_EEG_CONFIG).owners).toEqual([]);
    expect(() => owners.join('client', false)).toThrow(
      expect.objectContaining({ code: 'device_unavailable' }),
    );
    expect(() => owners.join('client', true)).toThrow(
      expect.objectContaining({ code: 'device_unavailable' }),
    );
  });

  it('sameEegConfig compares gain, rate and the channels in order', () => {
    const config = DEFAULT_EEG_CONFIG;
    expect(sameEegConfig(config, { ...config, channels: [...config.channels] })).toBe(true);
    expect(sameEegConfig(config, { ...config, gain: 12 })).toBe(false);
    expect(sameEegConfig(config, { ...config, samplingFrequency: 500 })).toBe(false);
    expect(sameEegConfig(config, { ...config, channels: [...config.channels].reverse() })).toBe(false);
    expect(sameEegConfig(config, { ...config, channels: config.channels.slice(1) })).toBe(false);
  });
});
