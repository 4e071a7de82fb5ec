/**
 * What `createApp` hands the /system plugin (api/system/) and, a part of it, the guide plugin
 * (api/guides/).
 */
import type { Headset } from '../device/headset.js';
import type { SettingsStore } from '../device/settings-store.js';
import type { EventHub } from '../events/hub.js';
import type { Db } from '../store/database.js';

export interface SystemPluginOptions {
  /** The headset every route drives (simulated, replay or hardware). */
  device: Headset;
  /** The device's event hub (GET /system/events), shared with the guide plugin. */
  events: EventHub;
  /** The service's store: hostname and configuration live in its `settings` table. */
  db: Db;
  /** The data dir: healthz reports the storage of its file system. */
  dataDir: string;
  /** The port actually served (healthz `httpPort`); read at each request. */
  httpPort: () => number;
  /** The service version (status, version). */
  version: string;
  /**
   * The settings store: the one whose `hostname()` the security hook uses, so that a renamed device
   * is accepted in `Host` at once; one store for the whole service (it caches the hostname).
   */
  settings: SettingsStore;
  /** Stream counts for GET /system/status; `{total: 0, running: 0}` when omitted. */
  streams?: () => { total: number; running: number };
  /** When the service started (ms since the epoch) for `uptimeSeconds`; plugin registration time when omitted. */
  startedAt?: number;
  /** Where sysfs is mounted, for the CPU temperature (default `/sys`; tests pass a fake tree). */
  sysRoot?: string;
}
