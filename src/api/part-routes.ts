/**
 * The routes that need a part of the device say so where they are made (`config.needs`), and
 * everything else follows from that one declaration: on a device without the part the route
 * answers `409 not_supported` naming the device and the part before its handler runs
 * (docs/devices.md §Capabilities), and the OpenAPI document lists the 409 and the parts
 * (`x-device-parts`, openapi.ts). Whether the device has a part is the device's own answer
 * (device/capabilities.ts): no table here to keep in step with it. test/api/live-device-paths.test.ts
 * checks what every route answers on a device without the parts against the document.
 */
import type { FastifyInstance, FastifyRequest, preHandlerHookHandler, RouteOptions } from 'fastify';
import { appendHook } from './route-hooks.js';
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
 * (not_supported): after the request's schema is checked, before its handler. A hook of each such
 * route, added as the route is made, so that the routes that need nothing (GET /system/status,
 * which apps poll) pass no hook for it.
 */
export function refuseMissingParts(app: FastifyInstance, device: Headset): void {
  app.addHook('onRoute', (route) => {
    const needs = routeParts(route);
    if (needs.length === 0) return;
    const needsWhen = route.config?.needsWhen;
    const refuse: preHandlerHookHandler = (request, _reply, done) => {
      if (needsWhen !== undefined && !needsWhen(request)) {
        done();
        return;
      }
      try {
        requireParts(device, ...needs);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    route.preHandler = appendHook(route.preHandler, refuse);
  });
}
