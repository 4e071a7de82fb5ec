/**
 * headsetd as a library, for embedding the service in another program or test harness. The
 * command (`headsetd serve`) is the usual way to run it; the custom-node SDK is `headsetd/sdk`.
 */
export { DEFAULTS, loadSettings, type Settings } from './service/config.js';
export { startServer, type RunningServer, type ServerOptions } from './service/server.js';
export { ERROR_CATALOG, type ErrorCode, HeadsetdError } from './core/errors.js';
export { HTTP_STATUS, httpStatus } from './platform/http/statuses.js';
export type { Frame, FrameJson } from './core/frame.js';
export { frameFromJson, frameToJson } from './core/frame.js';
export type { Headset } from './device/headset.js';
export { createSimulatedHeadset } from './device/simulated/index.js';
export { createReplayHeadset } from './device/replay/index.js';
export type { StreamDefinition } from './core/stream-model.js';
