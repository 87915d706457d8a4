/**
 * The default profile (pkg/scheduler/apis/config/v1 getDefaultPlugins, v1.32)
 * and a KubeSchedulerConfiguration subset on top of it: plugins enabled or
 * disabled per extension point (or multiPoint), score weights, pluginConfig
 * args, percentageOfNodesToScore.
 */
import { parse as parseYaml } from 'yaml';
import { Framework, type Plugin } from './framework.js';
import { balancedAllocation } from './plugins/balanced-allocation.js';
import { imageLocality } from './plugins/image-locality.js';
import { interPodAffinity } from './plugins/inter-pod-affinity.js';
import { nodeAffinity } from './plugins/node-affinity.js';
import { nodeName } from './plugins/node-name.js';
import { nodePorts } from './plugins/node-ports.js';
import { nodeResourcesFit } from './plugins/node-resources-fit.js';
import { nodeUnschedulable } from './plugins/node-unschedulable.js';
import { podTopologySpread } from './plugins/pod-topology-spread.js';
import { schedulingGates } from './plugins/scheduling-gates.js';
import { taintToleration } from './plugins/taint-toleration.js';
import { volumeBinding } from './plugins/volume-binding.js';
import { volumeRestrictions } from './plugins/volume-restrictions.js';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

type Factory = (args: any) => Plugin;

/** The in-tree plugins we have, in the default profile's order (which is the order Filter runs them). */
const REGISTRY: [string, Factory][] = [
  ['SchedulingGates', () => schedulingGates()],
  ['NodeUnschedulable', () => nodeUnschedulable()],
  ['NodeName', () => nodeName()],
  ['TaintToleration', () => taintToleration()],
  ['NodeAffinity', () => nodeAffinity()],
  ['NodePorts', () => nodePorts()],
  ['NodeResourcesFit', (a) => nodeResourcesFit(a)],
  ['VolumeRestrictions', () => volumeRestrictions()],
  ['VolumeBinding', () => volumeBinding()],
  ['PodTopologySpread', (a) => podTopologySpread(a)],
  ['InterPodAffinity', (a) => interPodAffinity(a)],
  ['NodeResourcesBalancedAllocation', (a) => balancedAllocation(a)],
  ['ImageLocality', () => imageLocality()],
];

/** Plugins that exist upstream and that the profile handles itself (queue sort, post filter, bind) or that have nothing to do here. */
const BUILT_IN = new Set(['PrioritySort', 'DefaultPreemption', 'DefaultBinder', 'NodeVolumeLimits', 'VolumeZone', 'EBSLimits', 'GCEPDLimits',
  'AzureDiskLimits', 'CinderLimits', 'DynamicResources']);

export const DEFAULT_WEIGHTS: Record<string, number> = {
  TaintToleration: 3, NodeAffinity: 2, PodTopologySpread: 2, InterPodAffinity: 2,
  NodeResourcesFit: 1, NodeResourcesBalancedAllocation: 1, ImageLocality: 1,
};

export interface ProfileConfig {
  schedulerName: string;
  framework: Framework;
  /** DefaultPreemption (the PostFilter) is enabled. */
  preemption: boolean;
}

export interface SchedulerConfig { profiles: ProfileConfig[] }

export class ConfigError extends Error {}

type PluginSet = { enabled?: { name: string; weight?: number }[]; disabled?: { name: string }[] };
const POINTS = ['preEnqueue', 'preFilter', 'filter', 'postFilter', 'preScore', 'score'] as const;
type Point = typeof POINTS[number];

/** Which of a plugin's methods belong to which extension point. */
const METHODS: Record<Point, (keyof Plugin)[]> = {
  preEnqueue: ['preEnqueue'], preFilter: ['preFilter'], filter: ['filter'], postFilter: [],
  preScore: ['preScore'], score: ['score', 'normalizeScore'],
};

function enabledAt(set: PluginSet | undefined, multi: PluginSet | undefined, name: string, byDefault: boolean): boolean {
  const disabled = (s?: PluginSet) => (s?.disabled ?? []).some((d) => d.name === name || d.name === '*');
  const enabled = (s?: PluginSet) => (s?.enabled ?? []).some((e) => e.name === name);
  if (enabled(set)) return true;
  if (disabled(set)) return false;
  if (enabled(multi)) return true;
  if (disabled(multi)) return false;
  return byDefault;
}

/** One profile from its KubeSchedulerProfile (an empty object is the default profile). */
export function buildProfile(p: any = {}, globalPercentage?: number, random?: () => number): ProfileConfig {
  const plugins = p.plugins ?? {};
  const args = new Map<string, any>();
  for (const pc of p.pluginConfig ?? []) args.set(pc?.name, pc?.args ?? {});
  const named = new Set<string>();
  for (const point of [...POINTS, 'multiPoint', 'queueSort', 'bind', 'reserve', 'permit', 'preBind', 'postBind']) {
    for (const e of [...(plugins[point]?.enabled ?? []), ...(plugins[point]?.disabled ?? [])]) if (e?.name && e.name !== '*') named.add(e.name);
  }
  for (const n of [...named, ...args.keys()]) {
    if (!REGISTRY.some(([r]) => r === n) && !BUILT_IN.has(n)) throw new ConfigError(`plugin "${n}" does not exist`);
  }
  const weights = new Map<string, number>();
  const out: Plugin[] = [];
  for (const [name, factory] of REGISTRY) {
    const plugin = factory(args.get(name) ?? {});
    const keep: Partial<Record<keyof Plugin, unknown>> = { name: plugin.name, events: plugin.events, podDependentPreFilter: plugin.podDependentPreFilter };
    let any = false;
    for (const point of POINTS) {
      const methods = METHODS[point];
      if (!methods.some((m) => plugin[m] !== undefined)) continue;
      if (!enabledAt(plugins[point], plugins.multiPoint, name, true)) continue;
      for (const m of methods) {
        // Copied unbound: every plugin is a closure that never reads `this`, and the filter and score loops
        // call these once per node and plugin, where a bound copy would add a call each time.
        // eslint-disable-next-line @typescript-eslint/unbound-method
        const method = plugin[m];
        if (typeof method === 'function') keep[m] = method;
      }
      any = true;
    }
    // A Filter needs the state its PreFilter computes, a Score its PreScore's.
    if (!keep.filter) delete keep.preFilter;
    if (!keep.score) delete keep.preScore;
    if (!any) continue;
    out.push(keep as unknown as Plugin);
    if (keep.score) {
      const w = [...(plugins.score?.enabled ?? []), ...(plugins.multiPoint?.enabled ?? [])].find((e: any) => e?.name === name)?.weight;
      weights.set(name, Number(w ?? DEFAULT_WEIGHTS[name] ?? 1));
    }
  }
  const percentage = p.percentageOfNodesToScore ?? globalPercentage;
  if (percentage !== undefined && (!Number.isInteger(percentage) || percentage < 0 || percentage > 100)) {
    throw new ConfigError(`percentageOfNodesToScore: Invalid value: ${percentage}: not in valid range [0-100]`);
  }
  return {
    schedulerName: p.schedulerName ?? DEFAULT_SCHEDULER_NAME,
    framework: new Framework(out, weights, percentage || undefined, random),
    preemption: enabledAt(plugins.postFilter, plugins.multiPoint, 'DefaultPreemption', true),
  };
}

export function defaultConfig(): SchedulerConfig { return { profiles: [buildProfile()] }; }

/** A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file's text. */
export function parseSchedulerConfig(text: string): SchedulerConfig {
  const doc = parseYaml(text) ?? {};
  if (doc.kind !== 'KubeSchedulerConfiguration') throw new ConfigError(`kind must be KubeSchedulerConfiguration, not ${JSON.stringify(doc.kind)}`);
  if (doc.apiVersion !== 'kubescheduler.config.k8s.io/v1') {
    throw new ConfigError(`apiVersion must be kubescheduler.config.k8s.io/v1, not ${JSON.stringify(doc.apiVersion)}`);
  }
  const profiles: any[] = doc.profiles?.length ? doc.profiles : [{}];
  const seen = new Set<string>();
  const out = profiles.map((p) => buildProfile(p, doc.percentageOfNodesToScore));
  for (const p of out) {
    if (seen.has(p.schedulerName)) throw new ConfigError(`profiles: Duplicate value: "${p.schedulerName}"`);
    seen.add(p.schedulerName);
  }
  return { profiles: out };
}
