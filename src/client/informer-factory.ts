/**
 * SharedInformerFactory: one SharedInformer per resource for every
 * component of a process, so pods (say) are listed and watched once however
 * many controllers read them. Stopped with the process's run.
 */
import type { KObject } from '../apimachinery/object.js';
import type { Clock } from '../apimachinery/clock.js';
import { realClock } from '../apimachinery/clock.js';
import { SharedInformer, type InformerHandler } from './shared-informer.js';
import type { Client, ResourceRef } from './types.js';

export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer>();
  private stopped = false;

  constructor(private readonly client: Client, private readonly clock: Clock = realClock) {}

  forResource(ref: ResourceRef<unknown>): SharedInformer {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let i = this.informers.get(key);
    if (!i) {
      this.informers.set(key, i = new SharedInformer(this.client.resource(ref as ResourceRef<KObject>), this.clock));
      if (this.stopped) i.stop();
    }
    return i;
  }

  /** The resource's informer with the handler added, once it has synced. */
  async inform(ref: ResourceRef<unknown>, handler: InformerHandler): Promise<SharedInformer> {
    const i = this.forResource(ref);
    i.onEvent(handler);
    await i.start();
    return i;
  }

  /** The resources listed and watched so far. */
  get resources(): ResourceRef<KObject>[] { return [...this.informers.values()].map((i) => i.ref); }

  stop(): void {
    this.stopped = true;
    for (const i of this.informers.values()) i.stop();
  }
}
