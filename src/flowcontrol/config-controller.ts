/**
 * Keeps a FlowControl in step with the FlowSchemas and PriorityLevelConfigurations
 * in the cluster and writes each schema's Dangling condition, as kube-apiserver's
 * APF config controller does (apf_controller.go: syncOne, digestConfigObjects).
 */
import type { Store } from '../registry/store.js';
import type { KObject } from '../registry/types.js';
import type { WatchHandle } from '../storage/types.js';
import { StatusError } from '../api/status.js';
import { controllerContext } from '../controllers/context.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap.js';
import type { FlowControl } from './controller.js';
import type { FlowSchema, PriorityLevelConfiguration } from './types.js';

const GROUP = 'flowcontrol.apiserver.k8s.io';
/** ConfigConsumerAsFieldManager */
const CONSUMER = 'api-priority-and-fairness-config-consumer-v1';
/** the ensurer's field manager */
const PRODUCER = 'api-priority-and-fairness-config-producer-v1';

/** The ensurer's first pass: the suggested then the mandatory objects that are missing. */
export async function ensureFlowControlObjects(store: Store): Promise<void> {
  const create = async (resource: string, kind: string, obj: { metadata: { name?: string } }) => {
    const def = store.find(GROUP, 'v1', resource)!;
    if (await store.get(GROUP, resource, '', obj.metadata.name!)) return;
    try {
      await store.create(def, '', { apiVersion: `${GROUP}/v1`, kind, ...structuredClone(obj) } as KObject, controllerContext(PRODUCER));
    } catch (e) {
      if (!(e instanceof StatusError && e.status.reason === 'AlreadyExists')) throw e;
    }
  };
  for (const pl of [...SUGGESTED_PRIORITY_LEVELS, ...MANDATORY_PRIORITY_LEVELS]) await create('prioritylevelconfigurations', 'PriorityLevelConfiguration', pl);
  for (const fs of [...SUGGESTED_FLOW_SCHEMAS, ...MANDATORY_FLOW_SCHEMAS]) await create('flowschemas', 'FlowSchema', fs);
}

export async function startFlowControlConfig(store: Store, fc: FlowControl, log: (m: string) => void): Promise<() => void> {
  const plDef = store.find(GROUP, 'v1', 'prioritylevelconfigurations')!;
  const fsDef = store.find(GROUP, 'v1', 'flowschemas')!;
  const pls = new Map<string, PriorityLevelConfiguration>();
  const fss = new Map<string, FlowSchema>();
  let stopped = false;
  let scheduled = false;
  let syncing: Promise<void> = Promise.resolve();

  const sync = async () => {
    scheduled = false;
    const updates = fc.digest([...pls.values()], [...fss.values()]);
    for (const u of updates) {
      try {
        await store.update(fsDef, '', u.name, (cur) => {
          const status = (cur.status ?? {}) as { conditions?: unknown[] };
          const others = (status.conditions ?? []).filter((c) => (c as { type?: string }).type !== 'Dangling');
          return { ...cur, status: { ...status, conditions: [...others, u.condition] } };
        }, controllerContext(CONSUMER), 'status');
      } catch (e) {
        // A schema deleted meanwhile: its deletion event is on its way.
        if (!(e instanceof StatusError && e.status.code === 404)) log(`flowcontrol: failed to set a status.condition for FlowSchema ${u.name}: ${(e as Error).message}`);
      }
    }
  };
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    setImmediate(() => { syncing = syncing.then(sync); });
  };
  const track = <T extends { metadata: { name?: string } }>(m: Map<string, T>) => (type: string, obj: KObject) => {
    if (type === 'DELETED') m.delete(obj.metadata.name!);
    else m.set(obj.metadata.name!, obj as unknown as T);
    schedule();
  };
  const handles: WatchHandle[] = [];
  for (const [def, m] of [[plDef, pls], [fsDef, fss]] as const) {
    const list = await store.list(def, '');
    for (const o of list.items) (m as Map<string, unknown>).set(o.metadata.name!, o);
    handles.push(await store.watch(def, '', list.revision, {}, track(m as Map<string, { metadata: { name?: string } }>)));
  }
  scheduled = true;
  await sync();
  return () => { stopped = true; for (const h of handles) h.cancel(); };
}
