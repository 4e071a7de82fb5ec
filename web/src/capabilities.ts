/**
 * The parts the device has (GET /system/status, `capabilities`; docs/devices.md): the panels show
 * only what the device can do, so a live amplifier's dashboard has no motor, LED, IMU or battery
 * controls to answer 409 not_supported. Read once per page (the device does not change while the
 * service runs); undefined until the first answer.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { DeviceStatus } from './api-types';

export type Capabilities = DeviceStatus['capabilities'];

let known: Capabilities | undefined;
let loading: Promise<Capabilities> | undefined;

function load(): Promise<Capabilities> {
  loading ??= api<{ status: DeviceStatus }>('/system/status').then(
    (answer) => {
      known = answer.status.capabilities;
      return known;
    },
    (error: unknown) => {
      // Asked again next time (a 401 before the token was given, a service restarting).
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

export function useCapabilities(): Capabilities | undefined {
  const [value, setValue] = useState<Capabilities | undefined>(known);
  useEffect(() => {
    if (known !== undefined) return;
    let live = true;
    load().then(
      (capabilities) => {
        if (live) setValue(capabilities);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return value;
}

/** The parts a device lacks, in words, for the note that says why a panel is absent. */
export function missingParts(capabilities: Capabilities): string[] {
  const words: [keyof Capabilities, string][] = [
    ['impedance', 'impedance measurement'],
    ['motors', 'motors'],
    ['leds', 'LEDs'],
    ['imu', 'IMU'],
    ['battery', 'battery'],
    ['peripheralBus', 'peripheral bus'],
  ];
  return words.filter(([part]) => !capabilities[part]).map(([, text]) => text);
}
