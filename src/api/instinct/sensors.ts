/**
 * The maker's SDK sensor paths (docs/instinct-sdk.md §Sensors): the headset's sensors as the SDK
 * lists them. `eeg` is the EEG acquisition (enabled while acquired; sample_rate its sampling
 * frequency, changed as PUT /system/sensors/eeg does; enabling it takes the client's hold as POST
 * /system/sensors/eeg/stream does). `imu` is the head-band IMU, always on; its sample_rate is its
 * output data rate, one of IMU_RATES. GET /system/sensors/imu is the reference path's IMU reading,
 * to which these fields are added. `accelerometer` is the SDK's name for that IMU's accelerometer
 * (its own examples enable it at 100 Hz): the same part, answered and set by the same rules under
 * that type.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Headset } from '../../device/headset.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceCall, deviceRead } from '../http-helpers.js';
import { hasPart, requirePart } from '../../device/capabilities.js';
import { imuSensor } from '../sdk-shapes.js';
import { Sensor, SensorAnswer, SensorBody, tags } from './schemas.js';

export const SENSOR_TYPES = ['eeg', 'imu', 'accelerometer'] as const;
type SensorType = (typeof SENSOR_TYPES)[number];

function sensorType(type: string): SensorType {
  const lower = type.toLowerCase();
  if (!SENSOR_TYPES.includes(lower as SensorType)) {
    throw new HeadsetdError(
      'not_found',
      `The headset has no sensor ${JSON.stringify(type)}; its sensors are ${SENSOR_TYPES.join(', ')}.`,
      {
        path: '/params/type',
        allowed: [...SENSOR_TYPES],
      },
    );
  }
  return lower as SensorType;
}

/** The sensors that are the head band's IMU (the same part under the SDK's two names). */
function isImu(type: SensorType): type is 'imu' | 'accelerometer' {
  return type === 'imu' || type === 'accelerometer';
}

/** A request of /system/sensors/:type for the IMU, which only a device with one serves (part-routes.ts). */
function forImu(request: FastifyRequest): boolean {
  const type = (request.params as { type?: string }).type?.toLowerCase();
  return type === 'imu' || type === 'accelerometer';
}

function refuse(message: string, path: string): never {
  throw new HeadsetdError('validation_failed', message, { path });
}

export function instinctSensorRoutes(app: FastifyInstance, device: Headset): void {
  const eeg = () => {
    const state = device.eeg.state();
    return {
      type: 'eeg',
      enabled: state.streaming,
      sample_rate: state.config.samplingFrequency,
      range: null,
    };
  };
  const sensor = (type: SensorType) => (type === 'eeg' ? eeg() : imuSensor(requirePart(device, 'imu'), type));

  app.get(
    '/system/sensors',
    {
      schema: {
        tags,
        summary: `SDK: the headset's sensors (${SENSOR_TYPES.join(', ')})`,
        response: { 200: Type.Array(Sensor), ...errorResponses(400) },
      },
    },
    // Only the sensors the device has: an amplifier without an IMU lists EEG alone.
    async () => SENSOR_TYPES.filter((type) => !isImu(type) || hasPart(device, 'imu')).map(sensor),
  );

  app.get<{ Params: { type: string } }>(
    '/system/sensors/:type',
    {
      config: { needs: ['imu'], needsWhen: forImu },
      schema: {
        tags,
        summary:
          'SDK: one sensor (eeg, accelerometer; imu is answered by the reference path GET /system/sensors/imu with these fields)',
        params: Type.Object({ type: Type.String() }),
        response: { 200: Sensor, ...errorResponses(404) },
      },
    },
    async (request) => {
      return sensor(sensorType(request.params.type));
    },
  );

  app.patch<{
    Params: { type: string };
    Body: { type: string; enabled: boolean; sample_rate?: number | null; range?: number | null };
  }>(
    '/system/sensors/:type',
    {
      config: { accepts: ['json'], needs: ['imu'], needsWhen: forImu },
      schema: {
        tags,
        summary:
          'SDK: enable, disable or set the rate of a sensor (eeg: acquisition and sampling frequency; imu and accelerometer: always on, output data rate)',
        params: Type.Object({ type: Type.String() }),
        body: SensorBody,
        response: { 200: SensorAnswer, ...errorResponses(400, 404, 409, 415, 422, 503) },
      },
    },
    async (request) => {
      const type = sensorType(request.params.type);
      const { enabled, sample_rate: rate, range } = request.body;
      if (request.body.type.toLowerCase() !== type) {
        refuse(
          `The body's type ${JSON.stringify(request.body.type)} is not the sensor of the path, ${type}.`,
          '/type',
        );
      }
      if (range !== undefined && range !== null)
        refuse(`The ${type} sensor has no range to set; send null.`, '/range');
      if (isImu(type)) {
        const what = type === 'imu' ? 'The IMU' : "The accelerometer (the head band's IMU)";
        if (!enabled) refuse(`${what} is always on; it cannot be disabled.`, '/enabled');
        const imu = requirePart(device, 'imu');
        if (rate !== undefined && rate !== null)
          deviceRead(
            () => {
              imu.setRate(rate);
            },
            '',
            { rate: 'sample_rate' },
          );
        return { message: `${what} is on at ${imu.rate()} Hz.`, success: true, sensor: sensor(type) };
      }
      if (rate !== undefined && rate !== null && rate !== device.eeg.config().samplingFrequency) {
        await deviceCall(() => device.eeg.configure({ samplingFrequency: rate }), '', {
          samplingFrequency: 'sample_rate',
        });
      }
      await deviceCall(() => (enabled ? device.eeg.start('client') : device.eeg.stop('client')));
      const now = eeg();
      // Acquisition runs while any owner holds it: stopping the client's hold leaves a stream's.
      const message =
        !enabled && now.enabled
          ? 'EEG released by this client; acquisition goes on for the streams that read it.'
          : `EEG acquisition ${now.enabled ? 'on' : 'off'} at ${now.sample_rate} Hz.`;
      return { message, success: true, sensor: now };
    },
  );
}
