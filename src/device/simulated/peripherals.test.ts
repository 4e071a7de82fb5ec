import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUS_STATUS, PERIPHERAL, type SimulatedHeadset } from './index.js';
import { advance, fakeTimeHeadset } from '../../../test/support/device.js';

let headset: SimulatedHeadset;

beforeEach(() => {
  vi.useFakeTimers();
  headset = fakeTimeHeadset();
});

afterEach(async () => {
  await headset.close();
  vi.useRealTimers();
});

describe('LEDs', () => {
  it('starts with STATUS steady green and USER off', () => {
    expect(headset.leds.read('STATUS')).toEqual({
      index: 'STATUS',
      color: '#00FF00',
      active: true,
      state: 'STATIC',
      blinksPerSecond: 0,
    });
    expect(headset.leds.read()).toMatchObject({ index: 'USER', state: 'OFF', active: false });
  });

  it('blinks: lit for the first half of each period, dark for the second', async () => {
    const settings = await headset.leds.set({ index: 'user', color: '#f80', blinksPerSecond: 2 });
    expect(settings).toEqual({ index: 'USER', color: '#FF8800', blinksPerSecond: 2 });
    const seen: boolean[] = [];
    for (let t = 0; t < 4; t++) {
      expect(headset.leds.read('USER').state).toBe('BLINKING');
      seen.push(headset.leds.read('USER').active);
      await advance(125);
      seen.push(headset.leds.read('USER').active);
      await advance(125);
    }
    // Samples at 0, 125, 250, 375, ... ms of a 500 ms period: on, on, off, off, ...
    expect(seen).toEqual([true, true, false, false, true, true, false, false]);
    await headset.leds.set({ index: 'USER', blinksPerSecond: 0 });
    expect(headset.leds.read('USER')).toMatchObject({ state: 'STATIC', active: true, color: '#FF8800' });
    await headset.leds.set({ index: 'USER', color: '#000' });
    expect(headset.leds.read('USER')).toMatchObject({ state: 'OFF', active: false });
  });

  it('refuses bad colours, rates and indices', async () => {
    await expect(headset.leds.set({ color: 'green' })).rejects.toThrow(/#RGB or #RRGGBB/);
    await expect(headset.leds.set({ blinksPerSecond: 21 })).rejects.toThrow(/0 to 20/);
    await expect(headset.leds.set({ blinksPerSecond: -1 })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(() => headset.leds.read('POWER')).toThrow(/USER, STATUS/);
  });
});

describe('IMU', () => {
  it('sways slowly within a few mm and degrees, with noise, for the primary and 4 nodes', async () => {
    const primary = headset.imu.primary();
    for (const value of Object.values(primary)) expect(Math.abs(value)).toBeLessThan(6);
    const later: number[] = [];
    for (let i = 0; i < 20; i++) {
      await advance(500);
      later.push(headset.imu.primary().pos_x);
    }
    expect(Math.max(...later) - Math.min(...later)).toBeGreaterThan(0.2);
    // Nodes move with the head: close to the primary reading.
    for (let node = 0; node < 4; node++) {
      const reading = headset.imu.node(node);
      expect(Math.abs(reading.pos_x - headset.imu.primary().pos_x)).toBeLessThan(2);
    }
  });

  it('refuses a nodeIndex outside 0..3', () => {
    expect(() => headset.imu.node(4)).toThrow(/nodeIndex/);
    expect(() => headset.imu.node(-1)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(() => headset.imu.node(1.5)).toThrow(/integer/);
  });
});

describe('peripheral bus', () => {
  const request = { txnID: 7, packetType: 1, srcDevice: 0 };

  it('reads back what was written to scratch registers, numbers given as strings too', async () => {
    const write = await headset.bus.command({
      ...request,
      cmdResp: 2,
      peripheral: PERIPHERAL.motor,
      peripheralChannels: 3,
      parameter: ['0x10'],
      data: ['42', 43],
    });
    expect(write).toMatchObject({
      txnID: 7,
      packetType: 2,
      srcDevice: 2,
      cmdResp: BUS_STATUS.ok,
      data: [42, 43],
    });
    const read = await headset.bus.command({
      ...request,
      cmdResp: 1,
      peripheral: '2',
      peripheralChannels: 3,
      parameter: [0x10, 2],
      data: [],
    });
    expect(read.data).toEqual([42, 43]);
    // Another channel has its own registers.
    const other = await headset.bus.command({
      ...request,
      cmdResp: 1,
      peripheral: 2,
      peripheralChannels: 4,
      parameter: [0x10],
      data: [],
    });
    expect(other.data).toEqual([0]);
  });

  it('exposes the models: ADC id and rate, motor position, LED colour written through the bus', async () => {
    const adc = await headset.bus.command({
      ...request,
      cmdResp: 1,
      peripheral: PERIPHERAL.adc,
      peripheralChannels: 0,
      parameter: [0, 3],
      data: [],
    });
    expect(adc.data).toEqual([0x3e, 250, 24]);
    await headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 12.5 }]);
    await advance(1000);
    const position = await headset.bus.command({
      ...request,
      cmdResp: 1,
      peripheral: PERIPHERAL.motor,
      peripheralChannels: 1,
      parameter: [0],
      data: [],
    });
    expect(position.data).toEqual([1250]);
    await headset.bus.command({
      ...request,
      cmdResp: 2,
      peripheral: PERIPHERAL.led,
      peripheralChannels: 0,
      parameter: [0],
      data: [0x0000ff],
    });
    expect(headset.leds.read('USER')).toMatchObject({ color: '#0000FF', state: 'STATIC' });
  });

  it('injects and clears a motor fault through the FAULT register', async () => {
    await headset.bus.command({
      ...request,
      cmdResp: 2,
      peripheral: PERIPHERAL.motor,
      peripheralChannels: 0,
      parameter: [3],
      data: [1],
    });
    expect(headset.motors.states(['PZ']).PZ).toBe(4);
    expect(await headset.motors.move([{ electrode: 'PZ', movement: 'RELEASE', displacement: 5 }])).toEqual({
      PZ: 4,
    });
    await headset.bus.command({
      ...request,
      cmdResp: 2,
      peripheral: PERIPHERAL.motor,
      peripheralChannels: 0,
      parameter: [3],
      data: [0],
    });
    expect(headset.motors.states(['PZ']).PZ).toBe(0);
  });

  it('plugs the charger through the power peripheral', async () => {
    const answer = await headset.bus.command({
      ...request,
      cmdResp: 2,
      peripheral: PERIPHERAL.power,
      peripheralChannels: 0,
      parameter: [3],
      data: [1],
    });
    expect(answer.data).toEqual([1]);
    expect(headset.power.battery()).toMatchObject({ acConnected: true, isCharging: true });
  });

  it('answers peripheral errors in cmdResp', async () => {
    const base = { ...request, peripheralChannels: 0, data: [] as number[] };
    expect((await headset.bus.command({ ...base, cmdResp: 1, peripheral: 9, parameter: [0] })).cmdResp).toBe(
      BUS_STATUS.unknownPeripheral,
    );
    expect(
      (await headset.bus.command({ ...base, cmdResp: 1, peripheral: 1, parameter: [0x40] })).cmdResp,
    ).toBe(BUS_STATUS.unknownRegister);
    expect(
      (await headset.bus.command({ ...base, cmdResp: 2, peripheral: 1, parameter: [0], data: [1] })).cmdResp,
    ).toBe(BUS_STATUS.readOnly);
    expect((await headset.bus.command({ ...base, cmdResp: 9, peripheral: 1, parameter: [0] })).cmdResp).toBe(
      BUS_STATUS.unknownCommand,
    );
    expect(
      (
        await headset.bus.command({
          ...base,
          cmdResp: 1,
          peripheral: 2,
          peripheralChannels: 21,
          parameter: [0],
        })
      ).cmdResp,
    ).toBe(BUS_STATUS.badChannel);
    expect(
      (await headset.bus.command({ ...base, packetType: 2, cmdResp: 1, peripheral: 1, parameter: [0] }))
        .cmdResp,
    ).toBe(BUS_STATUS.badPacketType);
  });

  it('refuses malformed packets with validation_failed', async () => {
    await expect(
      headset.bus.command({
        ...request,
        cmdResp: 'read',
        peripheral: 1,
        peripheralChannels: 0,
        parameter: [0],
        data: [],
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('status and identity', () => {
  it('summarises the device state and names the device', async () => {
    expect(headset.status()).toMatchObject({
      state: 'idle',
      impedance: { measuring: false },
      motors: { moving: [] },
    });
    await headset.motors.move([{ electrode: 'CZ', movement: 'RELEASE', displacement: 10 }]);
    expect(headset.status()).toMatchObject({ state: 'moving', motors: { moving: ['CZ'] } });
    expect(headset.info()).toMatchObject({ kind: 'simulated', model: 'HS-21' });
  });

  it('refuses work after close', async () => {
    await headset.close();
    await expect(headset.eeg.start('client')).rejects.toMatchObject({ code: 'device_unavailable' });
    await expect(headset.impedance.measure()).rejects.toMatchObject({ code: 'device_unavailable' });
  });
});
