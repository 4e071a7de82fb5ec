import { describe, expect, test } from 'vitest';
import { DeviceArgumentError } from '../errors.js';
import { describeQuery, parseLslArgument } from './argument.js';

describe('the lsl: argument', () => {
  test.each([
    ['type=EEG', { type: 'EEG' }],
    ['name=obci_eeg1', { name: 'obci_eeg1' }],
    ['sourceId=cyton-1&type=EEG', { sourceId: 'cyton-1', type: 'EEG' }],
    ['source_id=cyton-1', { sourceId: 'cyton-1' }],
    [
      "predicate=starts-with(name,'obci') and channel_count>=8",
      { predicate: "starts-with(name,'obci') and channel_count>=8" },
    ],
    ["predicate=name='a&b'&type=EEG", { predicate: "name='a&b'", type: 'EEG' }],
    ['', { type: 'EEG' }],
  ])('%s is the query %o', (argument, query) => {
    expect(parseLslArgument(argument).query).toEqual(query);
  });

  test('options after ?: the channel map (- and empty: not played) and the wait; gap is still accepted', () => {
    const parsed = parseLslArgument('name=x?channels=Fp1, -,,T7&wait=2.5&gap=4');
    expect(parsed.channels).toEqual(['Fp1', undefined, undefined, 'T7']);
    expect(parsed.waitMs).toBe(2500);
    expect(parseLslArgument('type=EEG').waitMs).toBe(10_000);
    expect(parseLslArgument('type=EEG').channels).toBeUndefined();
  });

  test.each([
    ['colour=red', /"colour=red" is not a query term; use name=…, type=…/],
    ['name=', /name has no value; give the stream's, e\.g\. lsl:name=OpenBCI_EEG/],
    ['name=a&name=b', /name is given twice/],
    ['predicate=name=(', /the predicate name=\( is not XPath 1.0/],
    ['type=EEG?wait=soon', /wait must be seconds/],
    ['type=EEG?labels=a', /unknown option "labels" after \?; the options are channels, wait, gap/],
    ['type=EEG?gap=1', /gap must be sample periods, more than 1/],
    [`name=a'b"c`, /both ' and "/],
  ])('refuses %s, saying why', (argument, message) => {
    let error: unknown;
    try {
      parseLslArgument(argument);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DeviceArgumentError);
    expect((error as DeviceArgumentError).code).toBe('validation_failed');
    expect((error as DeviceArgumentError).field).toBe('device');
    expect((error as Error).message).toMatch(message);
  });

  test('describeQuery writes the query back as typed', () => {
    expect(describeQuery(parseLslArgument('type=EEG&name=obci').query)).toBe('name=obci&type=EEG');
  });
});
