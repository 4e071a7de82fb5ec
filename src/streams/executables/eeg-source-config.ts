/**
 * What the two names of the headset's EEG source (`eeg-source` and the maker's `eeg_source`) check
 * alike beyond their schemas (whose rates and gains are the headset's, core/hardware.ts): a channel
 * list against the device's channels. One check, so that both answer a wrong name the same way.
 */
import type { CheckContext, ConfigIssue } from './builtin-descriptor.js';

/**
 * Defects of a channel list (at `/<field>/<i>`): a name the device does not play (when the
 * service's device is known), a name listed twice (in any case).
 */
export function channelListIssues(
  channels: readonly string[] | undefined,
  { deviceChannels }: CheckContext,
  field = 'channels',
): ConfigIssue[] {
  if (channels === undefined) return [];
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  // Which names exist is the device's to say: the running service's device when there is one;
  // offline, any name (a document may be written for any device), checked when the node starts.
  const known = deviceChannels?.map((c) => c.toUpperCase());
  channels.forEach((name, i) => {
    const upper = name.toUpperCase();
    if (known !== undefined && !known.includes(upper)) {
      issues.push({
        path: `/${field}/${i}`,
        message: `'${name}' is not a channel of the device; its channels are ${deviceChannels?.join(', ')} (any case)`,
      });
    } else if (seen.has(upper)) {
      issues.push({ path: `/${field}/${i}`, message: `'${name}' is listed twice` });
    }
    seen.add(upper);
  });
  return issues;
}
