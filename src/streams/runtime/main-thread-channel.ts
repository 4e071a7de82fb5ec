/**
 * The line between a stream's worker and the main thread for frames: `tap` nodes send their
 * frames out (StreamRuntime.tap), and the main thread hands frames in to `ingest` nodes
 * (StreamRuntime.feed). host.ts makes one per stream and gives each node its end of it as
 * NodeContext.mainThread.
 */
import type { Frame } from '../../core/frame.js';
import type { MainThreadLink } from '../../core/node.js';
import { toWire, type WireFrame } from '../../core/frame-wire.js';

export type TapFramePost = (
  message: { kind: 'tap-frame'; streamId: string; nodeId: string; frame: WireFrame },
  transfer: ArrayBuffer[],
) => void;

export class MainThreadChannel {
  private readonly receivers = new Map<string, (frame: Frame) => void>();

  /** `post` sends a message to the main thread, transferring `transfer`. */
  constructor(
    private readonly streamId: string,
    private readonly post: TapFramePost,
  ) {}

  /** The end of the channel a node's context gets. */
  linkFor(nodeId: string): MainThreadLink {
    return {
      send: (frame) => {
        // Frames are shared with other consumers: the samples are copied once and the copy's
        // buffer is transferred (docs/architecture.md §Data plane).
        const wire = toWire(frame);
        this.post({ kind: 'tap-frame', streamId: this.streamId, nodeId, frame: wire }, [
          wire.data.buffer as ArrayBuffer,
        ]);
      },
      receive: (onFrame) => {
        this.receivers.set(nodeId, onFrame);
        return () => {
          if (this.receivers.get(nodeId) === onFrame) this.receivers.delete(nodeId);
        };
      },
    };
  }

  /** A frame from the main thread for a node; false when no such node listens (stopped, removed by an edit). */
  deliver(nodeId: string, frame: Frame): boolean {
    const receiver = this.receivers.get(nodeId);
    if (receiver === undefined) return false;
    receiver(frame);
    return true;
  }
}
