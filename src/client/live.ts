/**
 * Views that change while a command runs: on a terminal a block of lines redrawn in place (the
 * cursor goes back up over the previous block), elsewhere each block printed once after the
 * other, so a log keeps every state. Also the text progress bar of long operations.
 */
import type { Output } from './output.js';

export class LiveView {
  private drawn = 0;

  constructor(private readonly output: Output) {}

  draw(lines: readonly string[]): void {
    const out = this.output.stdout;
    if (this.output.tty) {
      // Up to the first line of the previous block, then clear to the end of the screen.
      if (this.drawn > 0) out.write(`\x1b[${String(this.drawn)}F\x1b[J`);
      out.write(`${lines.join('\n')}\n`);
      this.drawn = lines.length;
    } else {
      out.write(`${lines.join('\n')}\n\n`);
    }
  }
}

/** `[████████░░░░░░░░]`: `fraction` (0..1) of `width` cells. */
export function progressBar(fraction: number, width = 20): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(clamped * width);
  return `[${'█'.repeat(full)}${'░'.repeat(width - full)}]`;
}
