/** What the numbers were measured on: they mean little without it. */
import process from 'node:process';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';

export function machineInfo() {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    /** 1-minute load average when the run started: > cores means other work competed for the CPU. */
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
  };
}
