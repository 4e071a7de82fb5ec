/**
 * The two LEDs, USER and STATUS. A blinking LED is lit for the first half of each period,
 * counted from the moment it was set, so `active` alternates at `blinksPerSecond`.
 * Black (`#000000`) is off.
 */
import type { DeviceClock } from '../clock.js';
import {
  LED_INDICES,
  type LedChange,
  type LedController,
  type LedIndex,
  type LedSettings,
  type LedState,
} from '../headset.js';
import { numberInRangeOrThrow, oneOfOrThrow } from '../arguments.js';
import { DeviceArgumentError } from '../errors.js';

export const MAX_BLINKS_PER_SECOND = 20;
const OFF = '#000000';

interface Led {
  color: string;
  blinksPerSecond: number;
  /** Monotonic ms when the blink pattern started. */
  since: number;
}

/** `#RGB` or `#RRGGBB` to upper-case `#RRGGBB`. */
export function normaliseColor(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(text);
  if (short !== null)
    return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toUpperCase();
  if (/^#[0-9a-f]{6}$/i.test(text)) return text.toUpperCase();
  throw new DeviceArgumentError(
    `color ${JSON.stringify(value)} is not a colour; use #RGB or #RRGGBB, e.g. #00FF00.`,
    {
      field: 'color',
      value,
    },
  );
}

export class SimulatedLeds implements LedController {
  private readonly leds: Record<LedIndex, Led>;

  constructor(private readonly clock: DeviceClock) {
    const now = clock.now();
    // At power-on the status LED shows steady green; the user LED is the app's, and off.
    this.leds = {
      USER: { color: OFF, blinksPerSecond: 0, since: now },
      STATUS: { color: '#00FF00', blinksPerSecond: 0, since: now },
    };
  }

  read(index?: string): LedState {
    const which = index === undefined ? 'USER' : oneOfOrThrow(index, LED_INDICES, 'index');
    const led = this.leds[which];
    const off = led.color === OFF;
    let active = !off;
    if (!off && led.blinksPerSecond > 0) {
      const periods = ((this.clock.now() - led.since) / 1000) * led.blinksPerSecond;
      active = periods - Math.floor(periods) < 0.5;
    }
    return {
      index: which,
      color: led.color,
      active,
      state: off ? 'OFF' : led.blinksPerSecond > 0 ? 'BLINKING' : 'STATIC',
      blinksPerSecond: led.blinksPerSecond,
    };
  }

  set(change: LedChange): Promise<LedSettings> {
    return Promise.resolve().then(() => this.apply(change));
  }

  /** Applies a change synchronously (also used by the peripheral bus). */
  apply(change: LedChange): LedSettings {
    const index = change.index === undefined ? 'USER' : oneOfOrThrow(change.index, LED_INDICES, 'index');
    const color = change.color === undefined ? undefined : normaliseColor(change.color);
    const blinks =
      change.blinksPerSecond === undefined
        ? undefined
        : numberInRangeOrThrow(change.blinksPerSecond, 'blinksPerSecond', 0, MAX_BLINKS_PER_SECOND, {
            unit: 'blinks per second',
          });
    const led = this.leds[index];
    if (color !== undefined) led.color = color;
    if (blinks !== undefined) led.blinksPerSecond = blinks;
    led.since = this.clock.now();
    return { index, color: led.color, blinksPerSecond: led.blinksPerSecond };
  }
}
