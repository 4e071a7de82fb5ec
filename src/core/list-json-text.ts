/**
 * A list's JSON text, made once per list object and kept while the list lives: for lists that are
 * values (frozen, or never changed once made) and are encoded again and again, such as a frame's
 * channel names (a subscription's list object is reused) and the device's channel lists in every
 * GET /system/status answer made.
 */
const texts = new WeakMap<readonly unknown[], string>();

export function listJsonText(list: readonly unknown[]): string {
  let text = texts.get(list);
  if (text === undefined) {
    text = JSON.stringify(list);
    texts.set(list, text);
  }
  return text;
}
