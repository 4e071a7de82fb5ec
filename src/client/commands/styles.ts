/** The colours of states and impedance levels in the human output. */
import type { ImpedanceLevel } from '../../guides/headmap/impedance-levels.js';
import type { Output, Style } from '../output.js';

const STATE_STYLES: Record<string, Style> = {
  running: 'green',
  paused: 'yellow',
  error: 'red',
  starting: 'cyan',
  stopping: 'cyan',
  pausing: 'cyan',
  completed: 'green',
  failed: 'red',
  cancelled: 'yellow',
};

/** `text` in the colour of a stream's, node's or job's state (any case). */
export function stateStyle(out: Output, state: string, text: string): string {
  const style = STATE_STYLES[state.toLowerCase()];
  return style === undefined ? text : out.style(style, text);
}

const LEVEL_STYLES: Record<ImpedanceLevel, Style> = {
  excellent: 'green',
  good: 'blue',
  acceptable: 'yellow',
  poor: 'magenta',
  very_poor: 'red',
};

export function levelStyle(out: Output, level: ImpedanceLevel, text: string): string {
  return out.style(LEVEL_STYLES[level], text);
}
