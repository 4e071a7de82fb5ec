/**
 * Keeps the shape of Node's `process.nextTick` records alive for the life of the thread.
 *
 * Why: Node 20 makes each tick record as an object literal with two computed keys (its async ids)
 * and V8 remembers, at each of those keys, the one shape it has seen; a second shape turns the
 * site generic for good (this literal kind has no polymorphic state), after which every record is
 * built by V8's runtime, key by key: about 30 runtime calls per HTTP request, and `nextTick` took
 * 400–800 ns a call instead of 75–150 ns (docs/performance.md §GET /system/status: the tick
 * records' shape). A second shape comes without anything changing: the shapes are held weakly,
 * so a full garbage collection while no record is alive (the service's start makes several, then
 * idles) frees them, and the next record makes them anew, equal but not the same. Holding one
 * record holds its shape and the chain it was built by. The record is the one
 * `executionAsyncResource()` answers inside a tick (Node's own object, a few words); were a later
 * Node to answer something else, this holds that instead and costs nothing.
 */
import { executionAsyncResource } from 'node:async_hooks';
import process from 'node:process';

let held: object | undefined;

/** Holds the thread's next tick record for good: call before the thread's first full collection. */
export function holdTickShape(): void {
  if (held !== undefined) return;
  process.nextTick(() => {
    held = executionAsyncResource();
  });
}
