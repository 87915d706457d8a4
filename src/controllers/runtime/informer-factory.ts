/**
 * SharedInformerFactory: one SharedInformer per resource for every
 * controller of a controller manager run, so pods (say) are listed and
 * watched once however many controllers read them. Stopped with the run.
 */
import type { Store } from '../../registry/store.js';
import type { ResourceDef } from '../../registry/types.js';
import { SharedInformer, type InformerHandler } from './shared-informer.js';

export class InformerFactory {
  private readonly informers = new Map<ResourceDef, SharedInformer>();
  private stopped = false;

  constructor(private readonly store: Store) {}

  forResource(def: ResourceDef): SharedInformer {
    let i = this.informers.get(def);
    if (!i) {
      this.informers.set(def, i = new SharedInformer(this.store, def));
      if (this.stopped) i.stop();
    }
    return i;
  }

  /** The resource's informer with the handler added, once it has synced. */
  async inform(def: ResourceDef, handler: InformerHandler): Promise<SharedInformer> {
    const i = this.forResource(def);
    i.onEvent(handler);
    await i.start();
    return i;
  }

  /** The resources listed and watched so far. */
  get resources(): ResourceDef[] { return [...this.informers.keys()]; }

  stop(): void {
    this.stopped = true;
    for (const i of this.informers.values()) i.stop();
  }
}
