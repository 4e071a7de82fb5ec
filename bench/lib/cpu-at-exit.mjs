/**
 * Loaded into a short command (`node --import cpu-at-exit.mjs ...`, bench/lib/command-cpu.js):
 * writes the CPU the process has used (user + system, every thread, in µs: process.cpuUsage()) to
 * file descriptor 3 as it exits, so the bench reads a command's CPU with µs resolution where
 * /usr/bin/time gives 10 ms ticks.
 */
import { writeSync } from 'node:fs';
import process from 'node:process';

process.once('exit', () => {
  const { user, system } = process.cpuUsage();
  try {
    writeSync(3, `${user + system}\n`);
  } catch {
    // Not started by the bench (no descriptor 3): nothing to report.
  }
});
