/**
 * kube-aggregator's local availability controller (pkg/controllers/status/local, v0.32): an APIService
 * served by this server (no service) is always Available, reason Local. The registry marks one at
 * create; this puts the condition back when an APIService turns local or its status is edited.
 * Runs in the API server, writing the status through its loopback client.
 */
import { isNotFound } from '../apimachinery/errors.js';
import { localAvailableCondition, setAPIServiceCondition, type APIService } from '../apimachinery/apiservice.js';
import { rfc3339 } from '../apimachinery/time.js';
import type { Clock } from '../apimachinery/clock.js';
import { realClock } from '../apimachinery/clock.js';
import { InformerFactory } from '../client/informer-factory.js';
import { apiservices } from '../client/resources.js';
import type { SharedInformer } from '../client/shared-informer.js';
import type { Client } from '../client/types.js';
import { RateLimitingQueue } from '../client/work-queue.js';
import { isDeepStrictEqual } from 'node:util';

export class LocalAPIServiceAvailability {
  private readonly informers: InformerFactory;
  private readonly queue: RateLimitingQueue;
  private informer?: SharedInformer;

  constructor(private readonly client: Client, private readonly log: (msg: string) => void, private readonly clock: Clock = realClock) {
    this.informers = new InformerFactory(client, clock);
    this.queue = new RateLimitingQueue({ clock });
  }

  async start(): Promise<void> {
    this.informer = await this.informers.inform(apiservices, (type, obj) => { if (type !== 'DELETED') this.queue.add(obj.metadata.name!); });
    for (const svc of this.informer.cache.list('')) this.queue.add(svc.metadata.name!);
    this.queue.run(1, (name) => this.sync(name), (name, e) => this.log(`local-available-controller: ${name}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
    this.informers.stop();
  }

  async sync(name: string): Promise<void> {
    const original = this.informer?.cache.get('', name) as APIService | undefined;
    if (!original || original.spec?.service) return;
    const updated = structuredClone(original);
    setAPIServiceCondition(updated, localAvailableCondition(rfc3339(new Date(this.clock.now()))));
    if (isDeepStrictEqual(original.status, updated.status)) return;
    try {
      await this.client.resource(apiservices).updateStatus('', name, (cur) => {
        const next = structuredClone(cur);
        setAPIServiceCondition(next, localAvailableCondition(rfc3339(new Date(this.clock.now()))));
        return next;
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
