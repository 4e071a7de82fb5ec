/**
 * The latest measured impedance of each electrode (kΩ), whoever measured it: a session, a
 * schedule, /system/sensors/impedance or the optimizer. Fed by the device's impedance events.
 */
import type { Electrode } from '../core/electrodes.js';
import { electrodeMapOf } from '../core/electrodes.js';
import type { ElectrodeMap } from '../device/headset.js';
import type { EventHub } from '../events/hub.js';
import { ListenerSet } from '../core/listener-set.js';

/** One measurement: the electrodes it measured (kΩ) and when. */
interface Measurement {
  values: ElectrodeMap<number>;
  timestamp: number;
}

export class LatestImpedance {
  private readonly values: ElectrodeMap<number> = {};
  private latestAt: number | undefined;
  private readonly listeners = new ListenerSet<Measurement>();
  private readonly unsubscribe: () => void;

  constructor(hub: EventHub) {
    this.unsubscribe = hub.on((event) => {
      if (event.type !== 'impedance') return;
      const measured = electrodeMapOf(event.data);
      Object.assign(this.values, measured);
      this.latestAt = event.timestamp;
      this.listeners.emit({ values: measured, timestamp: event.timestamp });
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
    return this.listeners.add(({ values, timestamp }) => {
      listener(values, timestamp);
    });
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}
