/**
 * Loaded into the service under test with `node --import` (bench/suites/store-soak.js): the main
 * thread's event-loop delay by `perf_hooks.monitorEventLoopDelay` (resolution 1 ms), written as
 * JSON to the file named by HEADSETD_BENCH_ELD_FILE on SIGUSR2, after which the histogram starts
 * again. Figures in ms, each including the 1 ms period of the monitor's timer.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import process from 'node:process';

const file = process.env.HEADSETD_BENCH_ELD_FILE;
const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
process.on('SIGUSR2', () => {
  const ms = (ns) => ns / 1e6;
  if (file !== undefined) {
    writeFileSync(
      file,
      JSON.stringify({
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        count: histogram.count,
      }),
    );
  }
  histogram.reset();
});
