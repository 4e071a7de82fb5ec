/**
 * What a channel's name may be, wherever one is given (a device argument's montage, an LSL
 * stream's labels, an eeg-source's `channels`): a device's channels keep the names their source
 * gives them, so this is all the project asks of a name.
 */

/** The longest channel name (an EDF+ label holds 16 characters; recorders shorten longer ones). */
export const MAX_CHANNEL_NAME = 64;

/** The most channels one device plays (a 256-channel amplifier). */
export const MAX_DEVICE_CHANNELS = 256;

/** Two channel names are the same channel when they differ only in case. */
export function sameChannelName(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

/**
 * Why `name` cannot name a channel (empty, too long, a control character, or a comma, which
 * separates the names of a device argument), or undefined when it can.
 */
export function channelNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (name.length > MAX_CHANNEL_NAME) return `is longer than ${MAX_CHANNEL_NAME} characters`;
  for (const char of name) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return 'holds a control character';
  }
  if (name.includes(',')) return 'holds a comma';
  return undefined;
}
