/**
 * The messages of WebSocket GET /system/events (docs/system-paths.md §Events): every device event
 * (impedance in kΩ, quality 0..1, system events, the replay device's markers), plus the events the
 * service raises (streams, nodes, impedance schedules) and each change of a job. One source for
 * the OpenAPI document (the socket's 101 answer), the dashboard's types and the events the hub
 * delivers (events/hub.ts types them from here, so a device event that left this shape would not
 * compile).
 */
import { Type } from 'typebox';
import { JobShape } from './jobs.js';

const timestamp = Type.Number({ description: 'ms since the Unix epoch.' });

export const SystemEventMessage = Type.Object({
  type: Type.Literal('system'),
  timestamp,
  eventType: Type.String({
    description:
      "What happened. The device's: acquisition_started, acquisition_stopped, motor_stalled, motor_fault, motor_timeout, device_lost, device_restored, samples_lost, rate_mismatch, rate_recovered, low_battery, charging_started, charging_stopped; the service's: node_crashed, node_warning, stream_failed, stream_degraded, stream_recovered, stream_restarted, impedance_increase.",
  }),
  level: Type.Enum(['info', 'warning', 'error']),
  message: Type.String({ description: 'One sentence for a person.' }),
});

export const ImpedanceEventMessage = Type.Object({
  type: Type.Literal('impedance'),
  timestamp,
  data: Type.Record(Type.String(), Type.Number(), {
    description: 'Electrode → kΩ, after each measurement.',
  }),
});

export const QualityEventMessage = Type.Object({
  type: Type.Literal('quality'),
  timestamp,
  data: Type.Object(
    {
      overall: Type.Number({ minimum: 0, maximum: 1 }),
      channels: Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 1 }), {
        description: 'EEG channel → quality.',
      }),
    },
    { description: 'Signal quality, 0 (unusable) .. 1 (excellent), once a second while acquiring.' },
  ),
});

export const MarkerEventMessage = Type.Object({
  type: Type.Literal('marker'),
  timestamp: Type.Number({
    description: "The marker's sample on the frames' time line (ms since the Unix epoch).",
  }),
  data: Type.Object(
    {
      text: Type.String(),
      onset: Type.Number({ description: "Seconds from the file's first sample." }),
      duration: Type.Optional(Type.Number({ description: 'Seconds, when the annotation has one.' })),
      file: Type.String({ description: "The file's name." }),
    },
    { description: 'An annotation (or trigger code) of the file the replay device plays.' },
  ),
});

/** A job started, reported progress or ended: the whole job, as GET /system/jobs/{id} answers it. */
export const JobEventMessage = Type.Object({
  type: Type.Literal('job'),
  timestamp,
  job: JobShape,
});

/** One message of WebSocket GET /system/events. */
export const EventMessage = Type.Union(
  [ImpedanceEventMessage, QualityEventMessage, SystemEventMessage, MarkerEventMessage, JobEventMessage],
  { description: 'One event, as a JSON text message.' },
);
