/**
 * The routes that need a part of the device say so where they are made (`config.needs`), and
 * everything else follows from that one declaration: on a device without the part the route
 * answers `409 not_supported` naming the device and the part before its handler runs
 * (docs/devices.md §Capabilities), and the OpenAPI document lists the 409 and the parts
 * (`x-device-parts`, openapi.ts). Whether the device has a part is the device's own answer
 * (device/capabilities.ts): no table here to keep in step with it. test/api/live-device-paths.test.ts
 * checks what every route answers on a device without the parts against the document.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { requireParts } from '../device/capabilities.js';
import type { DeviceCapability, Headset } from '../device/headset.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The parts of the device the route needs, in the order it uses them: a device without one
     * is refused with not_supported for the first it lacks, before anything is done.
     */
    needs?: readonly DeviceCapability[];
    /** Which requests need them, where only some do (the SDK's `imu` sensor); all when absent. */
    needsWhen?: (request: FastifyRequest) => boolean;
  }
}

/** The parts a route declares it needs (none for most routes). */
export function routeParts(route: Pick<RouteOptions, 'config'>): readonly DeviceCapability[] {
  return (route.config as { needs?: readonly DeviceCapability[] } | undefined)?.needs ?? [];
}

/**
 * Refuses, in this plugin's scope, each request for a route that needs a part `device` lacks
 * (not_supported): after the request's schema is checked, before its handler.
 */
export function refuseMissingParts(app: FastifyInstance, device: Headset): void {
  app.addHook('preHandler', async (request) => {
    const { needs, needsWhen } = request.routeOptions.config;
    if (needs === undefined || needs.length === 0) return;
    if (needsWhen !== undefined && !needsWhen(request)) return;
    requireParts(device, ...needs);
  });
}
