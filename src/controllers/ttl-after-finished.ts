/**
 * The TTL-after-finished controller (pkg/controller/ttlafterfinished):
 * a finished Job with spec.ttlSecondsAfterFinished is deleted that many
 * seconds after its Complete or Failed condition's lastTransitionTime, with
 * Foreground propagation (its pods go first, and the Job stays visible,
 * marked for deletion, until they have) and a UID precondition. It records
 * no events.
 */
import { StatusError } from '../apimachinery/errors.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import type { KObject } from '../apimachinery/object.js';
import { plain } from '../client/plain.js';
import { keyOf, splitKey } from '../client/queue-keys.js';
import { jobs } from '../client/resources.js';
import type { ResourceClient } from '../client/types.js';

const COMPONENT = 'ttl-after-finished-controller';

type Obj = KObject & { spec?: any; status?: any };

/** jobFinishTime: when the Complete/Failed condition became True. */
function finishTime(job: Obj): number | undefined {
  const c = (job.status?.conditions ?? []).find((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** needsCleanup: a TTL, finished, not already being deleted. */
function needsCleanup(job: Obj): boolean {
  return job.spec?.ttlSecondsAfterFinished != null && !job.metadata.deletionTimestamp && finishTime(job) !== undefined;
}

export class TTLAfterFinishedController {
  private readonly jobs: ResourceClient<KObject>;
  private readonly loop: RateLimitingQueue;
  private readonly now: () => Date;

  constructor(private readonly ctx: ControllerContext, opts: { now?: () => Date } = {}) {
    this.jobs = ctx.client.resource(plain(jobs));
    this.now = opts.now ?? (() => new Date(ctx.clock.now()));
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(jobs, (type, job) => {
      if (type !== 'DELETED' && needsCleanup(job)) this.loop.add(keyOf(job));
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(5, (k) => this.sync(k).then(() => undefined), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
  }

  /** processJob: deletes an expired job (re-checked on a fresh read); otherwise returns ms until it expires. */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const job = await this.jobs.find(ns, name) as Obj | undefined;
    if (!job || !needsCleanup(job)) return undefined;
    const expireAt = finishTime(job)! + job.spec.ttlSecondsAfterFinished * 1000;
    const left = expireAt - this.now().getTime();
    if (left > 0) {
      this.loop.addAfter(key, left);
      return left;
    }
    try {
      // processJob: the UID precondition is upstream's only one; a Job recreated meanwhile answers 409, which
      // (like any error but NotFound) sends the key back to the queue to be judged again.
      await this.jobs.delete(ns, name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid }, fieldManager: COMPONENT });
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return undefined;
      throw e;
    }
    return 0;
  }
}
