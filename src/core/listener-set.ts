/** A set of listeners, for the headset's events and the job registry's changes. */

export type Unsubscribe = () => void;

/**
 * A set of listeners. A listener that throws does not stop delivery to the others nor the device:
 * its error goes to `onListenerError` (by default a process warning).
 */
export class ListenerSet<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = reportListenerError) {}

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
        this.onListenerError(error);
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
