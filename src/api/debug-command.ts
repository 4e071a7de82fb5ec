/**
 * A packet for the peripheral bus, sent: POST /system/debug/command (its body validated by
 * {@link DebugBody}) and the maker's SDK path POST /system/system/debug (its form fields converted)
 * both answer with it. Numbers are accepted where the reference declares strings.
 */
import { Type } from 'typebox';
import type { DebugCommand, DebugResponse, Headset } from '../device/headset.js';
import { deviceCall } from './http-helpers.js';
import { requirePart } from '../device/capabilities.js';

const Num = Type.Union([Type.Number(), Type.String()], {
  description: 'A number, or its decimal or 0x hex text.',
});

export const DebugBody = Type.Object(
  {
    txnID: Type.Optional(Num),
    packetType: Num,
    srcDevice: Type.Optional(Num),
    cmdResp: Num,
    peripheral: Num,
    peripheralChannels: Num,
    parameter: Type.Array(Num),
    data: Type.Array(Num),
  },
  { additionalProperties: false },
);

/** Sends a packet to the peripheral bus; answers the packet the peripheral returned. */
export async function runDebugCommand(device: Headset, command: DebugCommand): Promise<DebugResponse> {
  return deviceCall(() => requirePart(device, 'peripheralBus').command(command));
}
