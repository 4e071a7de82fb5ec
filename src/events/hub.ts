/**
 * The events of GET /system/events: every device event, plus the events the API itself raises
 * (an impedance schedule finding a channel risen, for example) and the progress of the device's
 * jobs. The composer (server.ts) makes one hub per device and hands it to the /system and guide
 * plugins, and posts the runtime's stream failures and node crashes to it.
 */
import type { Static } from 'typebox';
import type { Headset, SystemEvent, Unsubscribe } from '../device/headset.js';
import { jobsFor } from '../platform/jobs/jobs.js';
import { ListenerSet } from '../core/listener-set.js';
import type { EventMessage, JobEventMessage, SystemEventMessage } from '../platform/schemas/events.js';

/**
 * An event of the hub: a message of GET /system/events as its schema says (platform/schemas/events.ts),
 * the schema the OpenAPI document and the dashboard read. The device's events and the job records
 * are delivered as such, so one that left that shape would not compile.
 */
export type HubEvent = Static<typeof EventMessage>;

/** A system event raised by the API; `eventType` is free text beyond the device's own types. */
export type ApiSystemEvent = Static<typeof SystemEventMessage>;

/** A job started, reported progress or ended: the whole record as GET /system/jobs/{id} answers it. */
export type JobEvent = Static<typeof JobEventMessage>;

export class EventHub {
  private readonly listeners = new ListenerSet<HubEvent>((error) => {
    process.emitWarning(`An event listener threw: ${String(error)}`, 'HeadsetdApiWarning');
  });
  private unsubscribeDevice: Unsubscribe | undefined;
  private unsubscribeJobs: Unsubscribe | undefined;

  constructor(private readonly device: Headset) {}

  /** Subscribes; the device and its jobs are listened to while the hub has listeners. */
  on(listener: (event: HubEvent) => void): Unsubscribe {
    const remove = this.listeners.add(listener);
    this.unsubscribeDevice ??= this.device.onEvent((event) => {
      this.deliver(event);
    });
    this.unsubscribeJobs ??= jobsFor(this.device).onChange((job) => {
      this.deliver({ type: 'job', timestamp: Date.now(), job });
    });
    return () => {
      remove();
      if (this.listeners.size === 0) {
        this.unsubscribeDevice?.();
        this.unsubscribeDevice = undefined;
        this.unsubscribeJobs?.();
        this.unsubscribeJobs = undefined;
      }
    };
  }

  /** Raises an API event (delivered like a device event). */
  system(eventType: string, level: SystemEvent['level'], message: string): void {
    this.deliver({ type: 'system', timestamp: Date.now(), eventType, level, message });
  }

  private deliver(event: HubEvent): void {
    this.listeners.emit(event);
  }
}
