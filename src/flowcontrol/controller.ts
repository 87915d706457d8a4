/**
 * The API Priority and Fairness configuration in force and the admission of
 * requests under it (k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go):
 * FlowSchemas in matching order, each priority level's concurrency limit and
 * queues, and the Dangling condition each schema's status should carry.
 * Priority levels lend and borrow no seats here: each runs at its nominal limit.
 */
import { FS_CATCH_ALL, FS_EXEMPT, PL_CATCH_ALL, PL_EXEMPT } from './bootstrap.js';
import { compareFlowSchemas, flowDistinguisher, hashFlowID, selectFlowSchema } from './classify.js';
import { QueueSet, type QueueSetConfig, type Ticket } from './queue-set.js';
import type { FlowSchema, FlowSchemaCondition, PriorityLevelConfiguration, RequestDigest } from './types.js';

/** kube-apiserver's --max-requests-inflight (400) plus --max-mutating-requests-inflight (200). */
export const SERVER_CONCURRENCY_LIMIT = 600;
/** priorityLevelMaxSeatsPercent */
const MAX_SEATS_PERCENT = 0.15;
/** The work estimator's maximumSeatsLimit. */
export const MAXIMUM_SEATS_LIMIT = 10;

export interface PriorityLevel {
  pl: PriorityLevelConfiguration;
  nominalCL: number;
  /** The most seats one request may take here (MaxSeatsTracker), 0 when unset. */
  maxSeats: number;
  queues: QueueSet;
}

/** A Dangling condition a schema's status should be given. */
export interface DanglingUpdate { name: string; condition: Required<FlowSchemaCondition> }

export interface Admission {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevelConfiguration;
  exempt: boolean;
  /** Undefined: rejected. */
  ticket?: Ticket;
}

/** queueSetCompleterForPL's checks: a level whose spec breaks them is ignored. */
function brokenLevel(pl: PriorityLevelConfiguration): boolean {
  const s = pl.spec;
  if ((s.type === 'Limited') !== !!s.limited) return true;
  if ((s.type === 'Exempt') !== !!s.exempt) return true;
  if ((s.type === 'Exempt') !== (pl.metadata.name === 'exempt')) return true;
  if (s.limited && (s.limited.limitResponse?.type === 'Reject') === !!s.limited.limitResponse?.queuing) return true;
  return false;
}

function shares(pl: PriorityLevelConfiguration): number {
  return pl.spec.limited ? pl.spec.limited.nominalConcurrencyShares ?? 0 : pl.spec.exempt?.nominalConcurrencyShares ?? 0;
}

/** presyncFlowSchemaStatus: the condition wanted, or undefined when the status already says it. */
export function danglingCondition(fs: FlowSchema, dangling: boolean, now: Date): Required<FlowSchemaCondition> | undefined {
  const pl = fs.spec.priorityLevelConfiguration.name;
  const want = dangling
    ? { status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" but there is no such object` }
    : { status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists` };
  const have = fs.status?.conditions?.find((c) => c.type === 'Dangling');
  if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) return undefined;
  return { type: 'Dangling', status: want.status, lastTransitionTime: now.toISOString().replace(/\.\d+Z$/, 'Z'), reason: want.reason, message: want.message };
}

export class FlowControl {
  private flowSchemas: FlowSchema[] = [FS_EXEMPT, FS_CATCH_ALL];
  private readonly levels = new Map<string, PriorityLevel>();

  constructor(private readonly serverConcurrencyLimit = SERVER_CONCURRENCY_LIMIT) {
    this.digest([PL_EXEMPT, PL_CATCH_ALL], []);
  }

  /** lockAndDigestConfigObjects: takes the objects in the cluster; returns the status conditions to write. */
  digest(pls: PriorityLevelConfiguration[], fss: FlowSchema[], now = new Date()): DanglingUpdate[] {
    const wanted = new Map<string, PriorityLevelConfiguration>();
    for (const pl of pls) if (!brokenLevel(pl)) wanted.set(pl.metadata.name!, pl);
    const updates: DanglingUpdate[] = [];
    const seq: FlowSchema[] = [];
    for (const fs of fss) {
      const found = wanted.has(fs.spec.priorityLevelConfiguration.name);
      const condition = danglingCondition(fs, !found, now);
      if (condition) updates.push({ name: fs.metadata.name!, condition });
      if (found) seq.push(fs);
    }
    seq.sort(compareFlowSchemas);
    // Missing mandatory objects are imagined, in their places.
    if (!seq.some((f) => f.metadata.name === 'exempt')) seq.unshift(FS_EXEMPT);
    if (!seq.some((f) => f.metadata.name === 'catch-all')) seq.push(FS_CATCH_ALL);
    if (!wanted.has('exempt')) wanted.set('exempt', PL_EXEMPT);
    if (!wanted.has('catch-all')) wanted.set('catch-all', PL_CATCH_ALL);

    const shareSum = [...wanted.values()].reduce((n, pl) => n + shares(pl), 0) || 1;
    for (const [name, pl] of wanted) {
      const nominalCL = Math.ceil(this.serverConcurrencyLimit * shares(pl) / shareSum);
      const queuing = pl.spec.limited?.limitResponse.queuing;
      const cfg: QueueSetConfig = { concurrencyLimit: nominalCL, queuing, exempt: pl.spec.type === 'Exempt' };
      const maxSeats = queuing ? Math.max(1, Math.min(Math.ceil(nominalCL * MAX_SEATS_PERCENT), Math.floor(nominalCL / queuing.handSize))) : 0;
      const level = this.levels.get(name);
      // A level that changes between exempt and limited starts over; requests in flight finish on the old one.
      if (level && level.pl.spec.type === pl.spec.type) {
        level.queues.configure(cfg);
        Object.assign(level, { pl, nominalCL, maxSeats });
      } else {
        this.levels.set(name, { pl, nominalCL, maxSeats, queues: new QueueSet(cfg) });
      }
    }
    for (const name of [...this.levels.keys()]) if (!wanted.has(name)) this.levels.delete(name);
    this.flowSchemas = seq;
    return updates;
  }

  level(name: string): PriorityLevel | undefined { return this.levels.get(name); }

  /** The schema and level a request belongs to. */
  classify(d: RequestDigest): { flowSchema: FlowSchema; level: PriorityLevel } {
    const flowSchema = selectFlowSchema(d, this.flowSchemas);
    return { flowSchema, level: this.levels.get(flowSchema.spec.priorityLevelConfiguration.name)! };
  }

  /**
   * startRequest: classifies the request and asks its level for `seats`
   * seats (capped at the level's maximum); the caller waits on the ticket.
   */
  startRequest(d: RequestDigest, seats: number, classified = this.classify(d)): Admission {
    const { flowSchema, level } = classified;
    const pl = level.pl;
    if (pl.spec.type === 'Exempt') {
      return { flowSchema, priorityLevel: pl, exempt: true, ticket: level.queues.startRequest(1, 0n) };
    }
    const queues = pl.spec.limited?.limitResponse.queuing?.queues ?? 0;
    const hash = queues > 1 ? hashFlowID(flowSchema.metadata.name!, flowDistinguisher(d, flowSchema)) : 0n;
    const limit = level.maxSeats && level.maxSeats < MAXIMUM_SEATS_LIMIT ? level.maxSeats : MAXIMUM_SEATS_LIMIT;
    const want = Math.max(1, Math.min(seats, limit));
    return { flowSchema, priorityLevel: pl, exempt: false, ticket: level.queues.startRequest(want, hash) };
  }
}
