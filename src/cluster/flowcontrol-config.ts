/**
 * Keeps a FlowControl in step with the FlowSchemas and PriorityLevelConfigurations
 * in the cluster and writes each schema's Dangling condition, as kube-apiserver's
 * APF config controller does (apf_controller.go: syncOne, digestConfigObjects).
 * Both it and the ensurer write through the client they are given: the API
 * server's loopback client (system:apiserver), as upstream's post-start hooks
 * do; being users of the client, they sit here with the wiring rather than in
 * flowcontrol/, which the API server's request path (below the client) uses.
 */
import type { KObject } from '../apimachinery/object.js';
import { StatusError, isAlreadyExists } from '../apimachinery/errors.js';
import { plain } from '../client/plain.js';
import { flowschemas, prioritylevelconfigurations } from '../client/resources.js';
import type { Client, ResourceRef, Watch } from '../client/types.js';
import { AUTO_UPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../flowcontrol/bootstrap.js';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../registry/groups/flowcontrol/shape.js';
import { semanticEqual } from '../registry/groups/shared.js';
import type { FlowControl } from '../flowcontrol/controller.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../flowcontrol/types.js';

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
export async function ensureFlowControlObjects(client: Client): Promise<void> {
  const write = { fieldManager: PRODUCER };
  const ensureKind = async (ref: ResourceRef<unknown>, defaults: (obj: KObject) => void, mandatory: Bootstrap[], suggested: Bootstrap[]) => {
    const resource = client.resource(plain(ref));
    const kind = ref.kind;
    for (const [boot, always] of [...suggested.map((b) => [b, false] as const), ...mandatory.map((b) => [b, true] as const)]) {
      const name = boot.metadata.name!;
      const current = await resource.find('', name);
      if (!current) {
        try {
          await resource.create('', { apiVersion: `${GROUP}/v1`, kind, ...structuredClone(boot) } as KObject, write);
        } catch (e) {
          if (!(isAlreadyExists(e))) throw e;
        }
        continue;
      }
      const annotation = parseBool(current.metadata.annotations?.[AUTO_UPDATE_ANNOTATION]);
      const autoUpdateSpec = always || (annotation ?? current.metadata.generation === 1);
      const want = { apiVersion: `${GROUP}/v1`, kind, ...structuredClone(boot) } as KObject;
      defaults(want);
      // The exempt level's two numbers are the cluster's to set (plcSpecChanged).
      const exempt = (current.spec as { exempt?: Record<string, unknown> } | undefined)?.exempt;
      if (name === 'exempt' && kind === 'PriorityLevelConfiguration' && exempt) {
        Object.assign((want.spec as { exempt: Record<string, unknown> }).exempt, { nominalConcurrencyShares: exempt.nominalConcurrencyShares, lendablePercent: exempt.lendablePercent });
      }
      const specChanged = autoUpdateSpec && !semanticEqual(want.spec, current.spec);
      if (annotation === autoUpdateSpec && !specChanged) continue;
      await resource.update('', name, (cur) => ({
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, [AUTO_UPDATE_ANNOTATION]: String(autoUpdateSpec) } },
        ...(specChanged ? { spec: want.spec } : {}),
      }), write);
    }
    const names = new Set([...mandatory, ...suggested].map((b) => b.metadata.name));
    for (const o of (await resource.list('')).items) {
      const a = o.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
      if (a === undefined || names.has(o.metadata.name) || parseBool(a) !== true) continue;
      try {
        await resource.delete('', o.metadata.name!, write);
      } catch (e) {
        if (!(e instanceof StatusError && e.status.code === 404)) throw e;
      }
    }
  };
  await ensureKind(prioritylevelconfigurations, defaultPriorityLevelConfiguration, MANDATORY_PRIORITY_LEVELS, SUGGESTED_PRIORITY_LEVELS);
  await ensureKind(flowschemas, defaultFlowSchema, MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS);
}

export async function startFlowControlConfig(client: Client, fc: FlowControl, log: (m: string) => void): Promise<() => void> {
  const schemas = client.resource(plain(flowschemas));
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
        await schemas.updateStatus('', u.name, (cur) => {
          const status = (cur.status ?? {}) as { conditions?: unknown[] };
          const others = (status.conditions ?? []).filter((c) => (c as { type?: string }).type !== 'Dangling');
          return { ...cur, status: { ...status, conditions: [...others, u.condition] } };
        }, { fieldManager: CONSUMER });
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
  const watches: Watch[] = [];
  for (const [ref, m] of [[prioritylevelconfigurations, pls], [flowschemas, fss]] as const) {
    const resource = client.resource(plain(ref));
    const list = await resource.list('');
    for (const o of list.items) (m as Map<string, unknown>).set(o.metadata.name!, o);
    watches.push(await resource.watch('', { resourceVersion: list.resourceVersion }, track(m as Map<string, { metadata: { name?: string } }>)));
  }
  scheduled = true;
  await sync();
  return () => { stopped = true; for (const w of watches) w.stop(); };
}
