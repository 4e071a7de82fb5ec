/**
 * GET /system/clock (docs/system-paths.md §The device): the service's two clocks read at one
 * instant. `unixMs` is the wall clock frames are stamped on (ms since the Unix epoch), `monotonicS`
 * the LSL clock (CLOCK_MONOTONIC seconds, liblsl's `local_clock()`), and `offsetMs` their difference,
 * fixed while the service runs: a frame's timestamp t is `(t − offsetMs) / 1000` on the LSL clock.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { lslNow, wallMinusLslMs } from '../../lsl/clock.js';

const tags = ['system: device'];
const ClockAnswer = Type.Object({
  success: Type.Literal(true),
  unixMs: Type.Number({ description: "The frames' wall clock now, ms since the Unix epoch." }),
  monotonicS: Type.Number({
    description: 'The LSL clock now (CLOCK_MONOTONIC, s): what liblsl’s local_clock() reads on this machine.',
  }),
  offsetMs: Type.Number({
    description: 'unixMs − 1000 × monotonicS: a frame timestamp t is (t − offsetMs) / 1000 on the LSL clock.',
  }),
});

export function clockRoutes(app: FastifyInstance): void {
  app.get(
    '/system/clock',
    {
      schema: {
        tags,
        summary: "The service's clocks: the frames' wall clock and the LSL clock, and their offset",
        response: { 200: ClockAnswer },
      },
    },
    async () => {
      const offsetMs = wallMinusLslMs();
      const monotonicS = lslNow();
      return { success: true, unixMs: monotonicS * 1000 + offsetMs, monotonicS, offsetMs };
    },
  );
}
