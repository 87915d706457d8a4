/**
 * What every controller is given, and all it uses of the rest of the
 * process: the API client, the shared informers, the event recorder, the
 * clock and the log.
 */
import { EventRecorder } from '../../events/recorder.js';
import { realClock, type Clock } from '../../apimachinery/clock.js';
import { InformerFactory } from '../../client/informer-factory.js';
import type { Client } from '../../client/types.js';
import { RateLimitingQueue } from '../../client/work-queue.js';

export interface ControllerContext {
  readonly client: Client;
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

export function newControllerContext(o: {
  client: Client; events?: EventRecorder; log?: (m: string) => void; clock?: Clock; informers?: InformerFactory;
}): ControllerContext {
  const client = o.client;
  const clock = o.clock ?? realClock;
  return {
    client, events: o.events ?? new EventRecorder(client), log: o.log ?? (() => {}), clock,
    informers: o.informers ?? new InformerFactory(client, clock),
  };
}

/** A rate-limited work queue on the context's clock. */
export function newQueue(ctx: ControllerContext): RateLimitingQueue {
  return new RateLimitingQueue({ clock: ctx.clock });
}
