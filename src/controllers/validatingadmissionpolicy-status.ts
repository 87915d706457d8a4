/**
 * The ValidatingAdmissionPolicy status controller (pkg/controller/validatingadmissionpolicystatus,
 * v1.32): once per generation of a policy it writes `status.observedGeneration` and the type checking
 * result, `status.typeChecking.expressionWarnings`. The CEL evaluator here has no type checker, so
 * the warnings are always empty (`typeChecking: {}`, what upstream writes for a policy whose
 * expressions check). Upstream applies the status (server-side apply, forced); this writes it with
 * an update of the status subresource under the same field manager.
 */
import { isNotFound } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { SharedInformer } from '../client/shared-informer.js';
import type { ResourceClient } from '../client/types.js';
import { validatingadmissionpolicies } from '../client/resources.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { plain } from '../client/plain.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';

/** validatingadmissionpolicystatus.ControllerName, the field manager of its writes. */
export const VAP_STATUS_FIELD_MANAGER = 'validatingadmissionpolicy-status';

type PolicyObj = KObject & { status?: { observedGeneration?: number; typeChecking?: unknown } };

export class ValidatingAdmissionPolicyStatusController {
  private readonly policies: ResourceClient<KObject>;
  private readonly queue: RateLimitingQueue;
  private informer?: SharedInformer;

  constructor(private readonly ctx: ControllerContext) {
    this.policies = ctx.client.resource(plain(validatingadmissionpolicies));
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.informer = await this.ctx.informers.inform(validatingadmissionpolicies, (type, obj) => {
      if (type !== 'DELETED') this.queue.add(obj.metadata.name!);
    });
    for (const p of this.informer.cache.list('')) this.queue.add(p.metadata.name!);
    this.queue.run(2, (k) => this.sync(k), (k, e) => this.ctx.log(`validatingadmissionpolicy-status-controller: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** reconcile */
  async sync(name: string): Promise<void> {
    const policy = this.informer?.cache.get('', name) as PolicyObj | undefined;
    if (!policy) return;
    const generation = policy.metadata.generation ?? 0;
    if (generation <= (policy.status?.observedGeneration ?? 0)) return;
    try {
      await this.policies.updateStatus('', name, (current) => {
        const status = { ...((current as PolicyObj).status ?? {}), observedGeneration: current.metadata.generation ?? generation, typeChecking: {} };
        return { ...current, status };
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
