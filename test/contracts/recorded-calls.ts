/**
 * What a contract case really used of its subject: the subject behind a proxy that notes each
 * member read (a method called, a property such as `thermal.batteryTemperatureSource` read), and,
 * for the parts named, each member of that part as `part.member` (`eeg.start`). Each contract case
 * checks that it used every member it claims to cover, so a case list cannot claim what it does not
 * call.
 */
export interface RecordedCalls<T> {
  subject: T;
  used: Set<string>;
}

function recorder<T extends object>(
  target: T,
  prefix: string,
  parts: ReadonlySet<string>,
  used: Set<string>,
): T {
  const wrappedParts = new Map<string, unknown>();
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof key !== 'string') return value;
      const name = `${prefix}${key}`;
      if (typeof value === 'function') {
        return (...args: unknown[]) => {
          used.add(name);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      }
      if (parts.has(name) && typeof value === 'object' && value !== null) {
        let part = wrappedParts.get(name);
        if (part === undefined) {
          part = recorder(value, `${name}.`, parts, used);
          wrappedParts.set(name, part);
        }
        return part;
      }
      used.add(name);
      return value;
    },
  });
}

export function recordCalls<T extends object>(target: T, parts: readonly string[] = []): RecordedCalls<T> {
  const used = new Set<string>();
  return { subject: recorder(target, '', new Set(parts), used), used };
}
