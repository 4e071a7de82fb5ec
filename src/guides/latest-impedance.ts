/**
 * The latest measured impedance of each electrode (kΩ), whoever measured it: a session, a
 * schedule, /system/sensors/impedance or the optimizer. Fed by the device's impedance events.
 */
import type { Electrode } from '../core/electrodes.js';
import { electrodeMapOf } from '../core/electrodes.js';
import type { ElectrodeMap } from '../device/headset.js';
import type { EventHub } from '../events/hub.js';

export class LatestImpedance {
  private readonly values: ElectrodeMap<number> = {};
  private latestAt: number | undefined;
  private readonly listeners = new Set<(values: ElectrodeMap<number>, timestamp: number) => void>();
  private readonly unsubscribe: () => void;

  constructor(hub: EventHub) {
    this.unsubscribe = hub.on((event) => {
      if (event.type !== 'impedance') return;
      const measured = electrodeMapOf(event.data);
      Object.assign(this.values, measured);
      this.latestAt = event.timestamp;
      for (const listener of this.listeners) listener(measured, event.timestamp);
    });
  }

  /** kΩ of every electrode measured so far. */
  all(): ElectrodeMap<number> {
    return { ...this.values };
  }

  get(electrode: Electrode): number | undefined {
    return this.values[electrode];
  }

  /** ms since the epoch of the latest measurement, undefined before the first. */
  timestamp(): number | undefined {
    return this.latestAt;
  }

  /** Calls `listener` after every measurement with its values (kΩ). */
  onMeasured(listener: (values: ElectrodeMap<number>, timestamp: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}
