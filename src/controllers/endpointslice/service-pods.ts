/**
 * The services and pods both endpoint controllers (Endpoints and
 * EndpointSlice) watch, and which services a pod change touches.
 */
import type { KObject } from '../../apimachinery/object.js';
import { pods, services } from '../../client/resources.js';
import type { ControllerContext } from '../runtime/controller-context.js';
import { selectsPod } from './util.js';

type Obj = KObject & { spec?: any; status?: any };

export class ServicePods {
  /** Services by `namespace/name`. */
  readonly services = new Map<string, Obj>();
  /** Pods by namespace, then name. */
  readonly pods = new Map<string, Map<string, Obj>>();

  /** `serviceChanged(key)` for every service event and for each service whose selection a pod event may change. */
  constructor(private readonly ctx: ControllerContext, private readonly serviceChanged: (key: string) => void) {}

  async start(): Promise<void> {
    await this.ctx.informers.inform(services, (type, svc) => {
      const key = `${svc.metadata.namespace}/${svc.metadata.name}`;
      if (type === 'DELETED') this.services.delete(key); else this.services.set(key, svc);
      this.serviceChanged(key);
    });
    await this.ctx.informers.inform(pods, (type, pod) => {
      const ns = pod.metadata.namespace!;
      let byName = this.pods.get(ns);
      if (!byName) this.pods.set(ns, byName = new Map());
      const old = byName.get(pod.metadata.name!);
      if (type === 'DELETED') byName.delete(pod.metadata.name!); else byName.set(pod.metadata.name!, pod);
      this.podChanged(ns, old, pod);
    });
  }

  /** getPodServiceMemberships, for the pod's labels before and after the change. */
  podChanged(ns: string, old: Obj | undefined, pod: Obj): void {
    for (const [key, svc] of this.services) {
      if (svc.metadata.namespace !== ns) continue;
      const sel = svc.spec?.selector;
      if (!sel) continue;
      if (selectsPod(sel, pod.metadata.labels) || (old && selectsPod(sel, old.metadata.labels))) this.serviceChanged(key);
    }
  }

  /** The pods of a namespace that a selector selects. */
  selected(namespace: string, selector: Record<string, string>): Obj[] {
    return [...(this.pods.get(namespace)?.values() ?? [])].filter((p) => selectsPod(selector, p.metadata.labels));
  }
}
