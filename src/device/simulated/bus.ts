/**
 * The peripheral bus behind POST /system/debug/command: five peripherals with integer registers
 * (the register map is documented in docs/device.md). Live registers read the device's models;
 * writable ones change them (a bus write to an LED's COLOR lights it) and read back what was
 * written; every peripheral and channel also has 16 scratch registers, 0x10..0x1F.
 *
 * Packet fields (docs/device.md §Peripheral bus): `packetType` 1 = request (answered 2 = response);
 * `cmdResp` in a request is the command (0 identify, 1 read, 2 write), in the response the
 * status (0 ok, see `BUS_STATUS`); `peripheral` the peripheral id; `peripheralChannels` the
 * channel within it; `parameter` = [register address, count for reads (default 1, at most 16)];
 * `data` the values to write, and in the response the values read or read back.
 */
import { DeviceArgumentError } from '../errors.js';
import type { DebugCommand, DebugResponse, PeripheralBus } from '../headset.js';
import { type BusTargets, type Peripheral, peripherals } from './bus-registers.js';

export { type BusTargets, PERIPHERAL } from './bus-registers.js';

export const PACKET_TYPE = { request: 1, response: 2 } as const;
export const BUS_COMMAND = { identify: 0, read: 1, write: 2 } as const;
export const BUS_STATUS = {
  ok: 0,
  unknownPeripheral: 1,
  unknownRegister: 2,
  readOnly: 3,
  badValue: 4,
  unknownCommand: 5,
  badChannel: 6,
  badPacketType: 7,
} as const;
/** The host's own address, `srcDevice` of requests. */
export const HOST_ADDRESS = 0;
const SCRATCH_FIRST = 0x10;
const SCRATCH_LAST = 0x1f;
const MAX_READ_COUNT = 16;

/** A packet number: a finite integer, or a string of one in decimal or `0x` hex. */
export function parseBusNumber(value: unknown, field: string): number {
  const parsed =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*(0x[0-9a-f]+|-?\d+)\s*$/i.test(value)
        ? Number(value.trim())
        : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw new DeviceArgumentError(
      `${field} must be an integer (decimal or 0x hex); got ${JSON.stringify(value)}.`,
      { field, value },
      { path: `/${field}`, value },
    );
  }
  return parsed;
}

export class SimulatedBus implements PeripheralBus {
  private readonly peripherals: Map<number, Peripheral>;
  /** Scratch registers by `peripheral:channel:address`. */
  private readonly scratch = new Map<string, number>();

  constructor(targets: BusTargets) {
    this.peripherals = peripherals(targets);
  }

  command(packet: DebugCommand): Promise<DebugResponse> {
    return Promise.resolve().then(() => this.execute(packet));
  }

  private execute(packet: DebugCommand): DebugResponse {
    if (typeof packet !== 'object' || !Array.isArray(packet.parameter) || !Array.isArray(packet.data)) {
      throw new DeviceArgumentError('A debug command needs parameter and data arrays.', {
        field: 'parameter',
      });
    }
    const txnID = packet.txnID === undefined ? 0 : parseBusNumber(packet.txnID, 'txnID');
    const packetType = parseBusNumber(packet.packetType, 'packetType');
    const command = parseBusNumber(packet.cmdResp, 'cmdResp');
    const peripheralId = parseBusNumber(packet.peripheral, 'peripheral');
    const channel = parseBusNumber(packet.peripheralChannels, 'peripheralChannels');
    const parameter = packet.parameter.map((v, i) => parseBusNumber(v, `parameter/${i}`));
    const data = packet.data.map((v, i) => parseBusNumber(v, `data/${i}`));
    const answer = (status: number, values: readonly number[] = []): DebugResponse => ({
      txnID,
      packetType: PACKET_TYPE.response,
      srcDevice: peripheralId,
      cmdResp: status,
      peripheral: peripheralId,
      peripheralChannels: channel,
      parameter,
      data: values,
    });

    if (packetType !== PACKET_TYPE.request) return answer(BUS_STATUS.badPacketType);
    const peripheral = this.peripherals.get(peripheralId);
    if (peripheral === undefined) return answer(BUS_STATUS.unknownPeripheral);
    if (command === BUS_COMMAND.identify) return answer(BUS_STATUS.ok, [peripheralId, peripheral.channels]);
    if (channel < 0 || channel >= peripheral.channels) return answer(BUS_STATUS.badChannel);
    const address = parameter[0];
    if (address === undefined) return answer(BUS_STATUS.unknownRegister);

    if (command === BUS_COMMAND.read) {
      const count = parameter[1] ?? 1;
      if (count < 1 || count > MAX_READ_COUNT) return answer(BUS_STATUS.badValue);
      const values: number[] = [];
      for (let a = address; a < address + count; a++) {
        const value = this.read(peripheralId, peripheral, channel, a);
        if (value === undefined) return answer(BUS_STATUS.unknownRegister);
        values.push(value);
      }
      return answer(BUS_STATUS.ok, values);
    }
    if (command === BUS_COMMAND.write) {
      if (data.length === 0 || data.length > MAX_READ_COUNT) return answer(BUS_STATUS.badValue);
      // Check every register first so that a refused write changes nothing.
      for (let i = 0; i < data.length; i++) {
        const a = address + i;
        if (this.isScratch(a)) continue;
        const register = peripheral.registers.get(a);
        if (register === undefined) return answer(BUS_STATUS.unknownRegister);
        if (register.write === undefined) return answer(BUS_STATUS.readOnly);
      }
      for (let i = 0; i < data.length; i++) {
        const a = address + i;
        const value = data[i] ?? 0;
        if (this.isScratch(a)) {
          this.scratch.set(`${peripheralId}:${channel}:${a}`, value);
        } else if (peripheral.registers.get(a)?.write?.(channel, value) === false) {
          return answer(BUS_STATUS.badValue);
        }
      }
      const readBack = data.map((_v, i) => this.read(peripheralId, peripheral, channel, address + i) ?? 0);
      return answer(BUS_STATUS.ok, readBack);
    }
    return answer(BUS_STATUS.unknownCommand);
  }

  private isScratch(address: number): boolean {
    return address >= SCRATCH_FIRST && address <= SCRATCH_LAST;
  }

  private read(
    peripheralId: number,
    peripheral: Peripheral,
    channel: number,
    address: number,
  ): number | undefined {
    if (this.isScratch(address)) return this.scratch.get(`${peripheralId}:${channel}:${address}`) ?? 0;
    return peripheral.registers.get(address)?.read(channel);
  }
}
