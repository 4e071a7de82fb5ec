/**
 * The one way the service keeps listeners: the headset's frames and events, the job registry's
 * changes, the event hub's subscribers, the stream manager's changes, the runtime's events and
 * taps, the latest impedance's measurements. Lint refuses a hand-made `new Set<(…) => void>` of
 * listeners elsewhere (eslint.config.js), so every listener is kept, removed and called one way.
 */

export type Unsubscribe = () => void;

/**
 * A set of listeners. A listener that throws does not stop delivery to the others nor the caller
 * of `emit`: its error goes to `onListenerError` with the value it was given (by default a process
 * warning).
 */
export class ListenerSet<T> {
  // The one Set of listeners lint allows (eslint.config.js, no-restricted-syntax).
  // eslint-disable-next-line no-restricted-syntax
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onListenerError: (error: unknown, value: T) => void = reportListenerError) {}

  add(listener: (value: T) => void): Unsubscribe {
    // Wrap so that the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T): void => {
      listener(value);
    };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error, value);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

function reportListenerError(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`A device listener threw: ${text}`, 'HeadsetdDeviceWarning');
}
