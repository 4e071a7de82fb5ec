/** The guide paths of API-NOTES.md §Guide paths (placeholder until the routes land). */
import type { FastifyInstance } from 'fastify';
import type { SystemPluginOptions } from '../system/index.js';

export type GuidesPluginOptions = SystemPluginOptions;

export function guidesPlugin(_app: FastifyInstance, _options: GuidesPluginOptions): void {
  // Routes are added in the following commits.
}
