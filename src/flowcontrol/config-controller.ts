/**
 * Keeps a FlowControl in step with the FlowSchemas and PriorityLevelConfigurations
 * in the cluster and writes each schema's Dangling condition, as kube-apiserver's
 * APF config controller does (apf_controller.go: syncOne, digestConfigObjects).
 */
import type { Store } from '../registry/store.js';
import type { KObject } from '../apimachinery/object.js';
import type { WatchHandle } from '../storage/types.js';
import { StatusError, isAlreadyExists } from '../apimachinery/errors.js';
import { inProcessWriteContext } from '../apimachinery/write-context.js';
import { AUTO_UPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap.js';
import { semanticEqual } from '../registry/groups/shared.js';
import type { FlowControl } from './controller.js';
import type { FlowSchema, PriorityLevelConfiguration } from './types.js';

const GROUP = 'flowcontrol.apiserver.k8s.io';
/** ConfigConsumerAsFieldManager */
const CONSUMER = 'api-priority-and-fairness-config-consumer-v1';
/** the ensurer's field manager */
const PRODUCER = 'api-priority-and-fairness-config-producer-v1';

/** strconv.ParseBool */
function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

type Bootstrap = { metadata: { name?: string }; spec: unknown };

/**
 * The ensurer (pkg/registry/flowcontrol/ensurer) at start: creates the missing
 * bootstrap objects, puts back the spec of those that auto-update (mandatory
 * ones always, suggested ones while their annotation says "true", or, without
 * a readable annotation, while still at generation 1) and deletes auto-updating
 * objects that are no longer part of the bootstrap configuration.
 */
export async function ensureFlowControlObjects(store: Store): Promise<void> {
  const ctx = () => inProcessWriteContext(PRODUCER);
  const ensureKind = async (resource: string, kind: string, mandatory: Bootstrap[], suggested: Bootstrap[]) => {
    const def = store.find(GROUP, 'v1', resource)!;
    for (const [boot, always] of [...suggested.map((b) => [b, false] as const), ...mandatory.map((b) => [b, true] as const)]) {
      const name = boot.metadata.name!;
      const current = await store.get(GROUP, resource, '', name);
      if (!current) {
        try {
          await store.create(def, '', { apiVersion: `${GROUP}/v1`, kind, ...structuredClone(boot) } as KObject, ctx());
        } catch (e) {
          if (!(isAlreadyExists(e))) throw e;
        }
        continue;
      }
      const annotation = parseBool(current.metadata.annotations?.[AUTO_UPDATE_ANNOTATION]);
      const autoUpdateSpec = always || (annotation ?? current.metadata.generation === 1);
      const want = { apiVersion: `${GROUP}/v1`, kind, ...structuredClone(boot) } as KObject;
      def.defaults?.(want);
      // The exempt level's two numbers are the cluster's to set (plcSpecChanged).
      const exempt = (current.spec as { exempt?: Record<string, unknown> } | undefined)?.exempt;
      if (name === 'exempt' && kind === 'PriorityLevelConfiguration' && exempt) {
        Object.assign((want.spec as { exempt: Record<string, unknown> }).exempt, { nominalConcurrencyShares: exempt.nominalConcurrencyShares, lendablePercent: exempt.lendablePercent });
      }
      const specChanged = autoUpdateSpec && !semanticEqual(want.spec, current.spec);
      if (annotation === autoUpdateSpec && !specChanged) continue;
      await store.update(def, '', name, (cur) => ({
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, [AUTO_UPDATE_ANNOTATION]: String(autoUpdateSpec) } },
        ...(specChanged ? { spec: want.spec } : {}),
      }), ctx());
    }
    const names = new Set([...mandatory, ...suggested].map((b) => b.metadata.name));
    for (const o of (await store.list(def, '')).items) {
      const a = o.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
      if (a === undefined || names.has(o.metadata.name) || parseBool(a) !== true) continue;
      try {
        await store.delete(def, '', o.metadata.name!, {}, ctx());
      } catch (e) {
        if (!(e instanceof StatusError && e.status.code === 404)) throw e;
      }
    }
  };
  await ensureKind('prioritylevelconfigurations', 'PriorityLevelConfiguration', MANDATORY_PRIORITY_LEVELS, SUGGESTED_PRIORITY_LEVELS);
  await ensureKind('flowschemas', 'FlowSchema', MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS);
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
        }, inProcessWriteContext(CONSUMER), 'status');
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
