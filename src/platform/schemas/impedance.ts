/**
 * The answers of the impedance sessions of the guide paths (docs/system-paths.md §Impedance
 * sessions): start, latest values, stop. One source for the routes' response schemas (and so the
 * OpenAPI document) and the dashboard's types. Values in kΩ, names in the mixed 10-20 case.
 */
import { Type } from 'typebox';

export const ImpedanceValues = Type.Record(Type.String(), Type.Number(), {
  description: 'Electrode (mixed case) → kΩ.',
});
export const ImpedanceSessionStatus = Type.Enum(['running', 'completed', 'stopped', 'failed']);
export const ImpedanceSessionMode = Type.Enum(['continuous', 'single']);

/** POST /electrodes/impedance/start. */
export const ImpedanceStartAnswer = Type.Object({
  success: Type.Literal(true),
  status: Type.Literal('running'),
  sessionId: Type.String(),
  mode: ImpedanceSessionMode,
  channels: Type.Array(Type.String()),
  updateInterval: Type.Integer(),
});

/** GET /electrodes/impedance: a session's latest values and where it is. */
export const ImpedanceSessionAnswer = Type.Object({
  success: Type.Literal(true),
  timestamp: Type.Union([Type.Number(), Type.Null()], {
    description: 'ms since the epoch; null before the first reading.',
  }),
  values: ImpedanceValues,
  status: ImpedanceSessionStatus,
  sessionId: Type.String(),
  mode: ImpedanceSessionMode,
  error: Type.Optional(Type.String()),
});

/** POST /electrodes/impedance/stop. */
export const ImpedanceStopAnswer = Type.Object({
  success: Type.Literal(true),
  status: ImpedanceSessionStatus,
  sessionId: Type.String(),
});
