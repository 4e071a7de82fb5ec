import { describe, expect, test } from 'vitest';
import { discoveryEnabled, replyPort } from './discovery.js';

describe("the maker's SDK discovery", () => {
  test('only the SDK query is answered, with the port it names', () => {
    expect(replyPort(Buffer.from('INSTINCT_DISCOVER:50123'))).toBe(50123);
    for (const text of [
      'INSTINCT_DISCOVER:0',
      'INSTINCT_DISCOVER:70000',
      'INSTINCT_DISCOVER:',
      'hello',
      'INSTINCT_DISCOVER:1 2',
    ]) {
      expect(replyPort(Buffer.from(text)), text).toBeUndefined();
    }
  });

  test('never by default: auto answers only beyond loopback; on and off say so', () => {
    expect(discoveryEnabled('auto', '127.0.0.1')).toBe(false);
    expect(discoveryEnabled('auto', 'localhost')).toBe(false);
    expect(discoveryEnabled('auto', '0.0.0.0')).toBe(true);
    expect(discoveryEnabled('on', '127.0.0.1')).toBe(true);
    expect(discoveryEnabled('off', '0.0.0.0')).toBe(false);
  });
});
