/**
 * The routes that need a part of the device, and which part: on a device without it (a live
 * amplifier has no motors, LEDs, IMU, battery or peripheral bus) they answer `409 not_supported`
 * naming the device and the part (docs/devices.md §Capabilities). The OpenAPI document lists the
 * 409 on each (openapi.ts); test/api/live-device-paths.test.ts checks this table against what the
 * routes answer on such a device.
 */
import type { DeviceCapability } from '../device/headset.js';

/** `METHOD /path/{param}` → the part it needs (the first one a live device lacks). */
export const PART_ROUTES: Readonly<Record<string, DeviceCapability>> = {
  'GET /system/sensors/impedance': 'impedance',
  'GET /system/sensors/impedance/all': 'impedance',
  'GET /system/motors/position': 'motors',
  'POST /system/motors/position': 'motors',
  'GET /system/motors/state': 'motors',
  'POST /system/motors/position/reset': 'motors',
  'GET /system/led/state': 'leds',
  'PUT /system/led/state': 'leds',
  'GET /system/sensors/imu/primary': 'imu',
  'GET /system/sensors/imu': 'imu',
  'GET /system/sensors/{type}': 'imu',
  'PATCH /system/sensors/{type}': 'imu',
  'POST /system/debug/command': 'peripheralBus',
  'POST /system/system/debug': 'peripheralBus',
  'POST /electrodes/impedance/start': 'impedance',
  'POST /electrodes/impedance/snapshot': 'impedance',
  'POST /electrodes/impedance/optimize': 'motors',
  'POST /electrodes/impedance/schedule': 'impedance',
  'POST /electrodes/adjust': 'motors',
  'POST /electrodes/prepare': 'motors',
  'POST /electrodes/diagnose': 'impedance',
  'POST /motors/control': 'motors',
  'POST /motors/apply-pressure': 'motors',
  'POST /leds/impedance-visualization': 'leds',
  'POST /system/peripheral/electrodes/impedance': 'impedance',
  'GET /system/peripheral/leds': 'leds',
  'PUT /system/peripheral/leds/{id}': 'leds',
  'GET /system/peripheral/motors': 'motors',
  'POST /system/peripheral/motors/move': 'motors',
  'GET /system/battery': 'battery',
};

/** Whether a route (Fastify's `:param` form) needs a part of the device. */
export function needsPart(method: string, url: string): boolean {
  return `${method} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}` in PART_ROUTES;
}
