/**
 * What every controller is given, and all it uses of the rest of the
 * process: storage access, the shared informers, the event recorder, the
 * clock and the log. Controllers read and write through `store` for now;
 * it is the one seam to replace by an API client.
 */
import { EventRecorder } from '../../events/recorder.js';
import type { Store } from '../../registry/store.js';
import { realClock, type Clock } from '../../apimachinery/clock.js';
import { InformerFactory } from './informer-factory.js';
import { RateLimitingQueue } from './work-queue.js';

export interface ControllerContext {
  readonly store: Store;
  readonly informers: InformerFactory;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly log: (m: string) => void;
}

/** A controller as the controller manager starts it (a ControllerDescriptor's init and Run). */
export interface Controller {
  /** kube-controller-manager's name for it, as `--controllers` takes it. */
  readonly name: string;
  /** Starts the controller (its informers synced); it stops when the signal aborts. */
  run(ctx: ControllerContext, signal: AbortSignal): Promise<void>;
}

export function newControllerContext(o: { store: Store; events?: EventRecorder; log?: (m: string) => void; clock?: Clock; informers?: InformerFactory }): ControllerContext {
  return { store: o.store, events: o.events ?? new EventRecorder(o.store), log: o.log ?? (() => {}), clock: o.clock ?? realClock, informers: o.informers ?? new InformerFactory(o.store) };
}

/** A rate-limited work queue on the context's clock. */
export function newQueue(ctx: ControllerContext): RateLimitingQueue {
  return new RateLimitingQueue({ clock: ctx.clock });
}
