/**
 * A packet for the peripheral bus, checked and sent: POST /system/debug/command and the maker's
 * SDK path POST /system/system/debug both answer with it. Numbers are accepted where the reference
 * declares strings.
 */
import { Type } from 'typebox';
import type { DebugCommand, DebugResponse, Headset } from '../device/headset.js';
import { check, issuesToError } from '../schemas/validator.js';
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

/**
 * Checks a packet of the reference shape and sends it to the peripheral bus; answers the packet
 * the peripheral returned. The maker's SDK path (POST /system/system/debug) calls it too.
 */
export async function runDebugCommand(device: Headset, body: unknown): Promise<DebugResponse> {
  const issues = check(DebugBody, body ?? null);
  if (issues.length > 0) throw issuesToError(issues, 'The body');
  return deviceCall(() => requirePart(device, 'peripheralBus').command(body as DebugCommand));
}
