/**
 * Live data shared by the panels: one WebSocket to /system/events for the whole page (re-opened
 * after a loss, with a growing delay), handed to every subscriber; and a polling hook whose timer
 * stops with the component that uses it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { socketUrl } from './api';
import type { DeviceEvent } from './api-types';

export type { DeviceEvent };

type Listener = (event: DeviceEvent) => void;

const listeners = new Set<Listener>();
let socket: WebSocket | undefined;
let retryMs = 500;

function open(): void {
  const ws = new WebSocket(socketUrl('/system/events'));
  socket = ws;
  ws.onopen = () => {
    retryMs = 500;
  };
  ws.onmessage = (message) => {
    if (typeof message.data !== 'string') return;
    let event: DeviceEvent;
    try {
      event = JSON.parse(message.data) as DeviceEvent;
    } catch {
      return;
    }
    listeners.forEach((f) => {
      f(event);
    });
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = undefined;
    setTimeout(open, retryMs);
    retryMs = Math.min(retryMs * 2, 10_000);
  };
}

/** Receives every device event while subscribed; the socket opens on the first subscriber. */
export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  if (socket === undefined) open();
  return () => listeners.delete(listener);
}

/** The latest events, newest first, kept from page load on so that the feed shows what happened before it was opened. */
export const recentEvents: DeviceEvent[] = [];
const KEPT_EVENTS = 200;

/** Starts keeping {@link recentEvents} (and so opens the events socket). */
export function keepEvents(): void {
  subscribe((event) => {
    recentEvents.unshift(event);
    if (recentEvents.length > KEPT_EVENTS) recentEvents.length = KEPT_EVENTS;
  });
}

/** Re-opens the events socket (after a token is entered). */
export function reconnectEvents(): void {
  const old = socket;
  socket = undefined;
  old?.close();
  if (listeners.size > 0) open();
}

export function useEvents(listener: Listener): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(
    () =>
      subscribe((e) => {
        ref.current(e);
      }),
    [],
  );
}

/**
 * Calls `load` now and every `everyMs` while mounted; answers its latest result and error. Calls do
 * not overlap: the next waits for the previous to settle.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  everyMs: number,
  deps: unknown[] = [],
): { value: T | undefined; error: unknown; refresh: () => void } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      try {
        const v = await load();
        if (!live) return;
        setValue(v);
        setError(undefined);
      } catch (e) {
        if (live) setError(e);
      }
      if (live) timer = setTimeout(() => void run(), everyMs);
    };
    void run();
    return () => {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
    };
    // The caller names what restarts the poll (deps); `load` itself changes at every render.
  }, [...deps, tick, everyMs]);
  return {
    value,
    error,
    refresh: () => {
      setTick((t) => t + 1);
    },
  };
}
