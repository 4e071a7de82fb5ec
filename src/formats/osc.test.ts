/**
 * The OSC 1.0 encoder's general messages and bundles (`i f s b t` arguments, nested bundles),
 * decoded by python3-liblo: each type and each padding case (strings and blobs of every length
 * modulo 4) comes back as it was written.
 */
import { createSocket } from 'node:dgram';
import { afterEach, expect, test } from 'vitest';
import { libloReceiver, type OscReceiver, type ReceivedOsc } from '../../test/support/osc-receiver.js';
import { FormatError } from './format-error.js';
import { encodeOscBundle, encodeOscMessage, ntpTimeTag, OSC_IMMEDIATELY } from './osc.js';

let rx: OscReceiver<ReceivedOsc> | undefined;
afterEach(async () => {
  await rx?.close();
  rx = undefined;
});

async function send(port: number, datagrams: Uint8Array[]): Promise<void> {
  const socket = createSocket('udp4');
  for (const d of datagrams) {
    await new Promise<void>((resolve, reject) => {
      socket.send(d, port, '127.0.0.1', (error) => {
        if (error === null) resolve();
        else reject(error);
      });
    });
  }
  socket.close();
}

test('every argument type and padding length decodes as written, in nested bundles', async () => {
  rx = await libloReceiver();
  const strings = ['', 'a', 'ab', 'abc', 'abcd', 'abcde'];
  const blobs = [0, 1, 2, 3, 4, 5].map((n) => Uint8Array.from({ length: n }, (_, i) => 250 - i));
  const messages = strings.map((text, i) =>
    encodeOscMessage(`/t${'x'.repeat(i)}`, [
      { type: 'i', value: -2_147_483_648 + i },
      { type: 'f', value: Math.fround(0.1 * (i + 1)) },
      { type: 's', value: text },
      { type: 'b', value: blobs[i]! },
      { type: 't', value: OSC_IMMEDIATELY },
    ]),
  );
  const inner = encodeOscBundle(ntpTimeTag(1_764_400_000_500), messages.slice(3));
  const outer = encodeOscBundle(ntpTimeTag(1_764_400_000_000), [...messages.slice(0, 3), inner]);
  await send(rx.port, [outer]);
  const got = await rx.waitFor(6);
  got.forEach((m, i) => {
    expect(m.path).toBe(`/t${'x'.repeat(i)}`);
    expect(m.types).toBe('ifsbt');
    expect(m.args[0]).toBe(-2_147_483_648 + i);
    expect(m.args[1]).toBe(Math.fround(0.1 * (i + 1)));
    expect(m.args[2]).toBe(strings[i]);
    expect(m.args[3]).toEqual([...blobs[i]!]);
    // liblo hands a time tag as NTP seconds in a double: "immediately" is 2^-32 s.
    expect(m.args[4]).toBeCloseTo(2 ** -32, 12);
    expect(m.tags).toHaveLength(i < 3 ? 1 : 2);
  });
  expect(Math.abs(got[0]!.tags[0]! - (1_764_400_000 + 2_208_988_800))).toBeLessThan(1e-6);
  expect(Math.abs(got[5]!.tags[1]! - (1_764_400_000.5 + 2_208_988_800))).toBeLessThan(1e-6);
});

test('a string beyond printable ASCII is refused, not sent altered', () => {
  expect(() => encodeOscMessage('/µ', [])).toThrow(FormatError);
  expect(() => encodeOscMessage('/a', [{ type: 's', value: 'a\0b' }])).toThrow(FormatError);
});
