/**
 * What the web view's filter table shows of `winkube explain-scheduling`'s result: plain JSON (no PodInfo,
 * no Status codes), one row per node in the scheduler's order, the first rejection first as upstream reports it.
 */
import { formatExplanation, type Explanation } from '../scheduler/explain.js';

export interface PluginVerdict { plugin: string; reasons: string[] }

export interface NodeFilterRow {
  node: string;
  feasible: boolean;
  /** The rejection the scheduler reports for this node (the first Filter plugin that said no). */
  rejectedBy?: PluginVerdict;
  alsoRejectedBy: PluginVerdict[];
}

export interface NodeScoreRow { node: string; total: number; scores: { plugin: string; score: number }[] }

export interface SchedulingView {
  pod: string;
  schedulerName: string;
  boundTo?: string;
  /** Set when a PreFilter plugin rejected the pod before any node was filtered. */
  preFilter?: PluginVerdict;
  skipped: string[];
  filter: NodeFilterRow[];
  scores: NodeScoreRow[];
  /** kube-scheduler's FailedScheduling text when no node fits. */
  failureMessage?: string;
  /** The same explanation as the terminal prints it. */
  text: string;
}

export function schedulingView(e: Explanation): SchedulingView {
  const verdict = (s: { plugin?: string; reasons: string[] }): PluginVerdict => ({ plugin: s.plugin ?? '', reasons: [...s.reasons] });
  return {
    pod: `${e.pod.namespace}/${e.pod.name}`,
    schedulerName: e.pod.pod.spec?.schedulerName ?? 'default-scheduler',
    ...(e.boundTo ? { boundTo: e.boundTo } : {}),
    ...(e.preFilter ? { preFilter: { plugin: e.preFilter.plugin ?? [...e.pluginsWithNodes].sort().join(', '), reasons: [...e.preFilter.reasons] } } : {}),
    skipped: [...e.skipped],
    filter: e.verdicts.map((v) => {
      const [first, ...rest] = v.rejections;
      return { node: v.node, feasible: !first, ...(first ? { rejectedBy: verdict(first) } : {}), alsoRejectedBy: rest.map(verdict) };
    }),
    scores: e.scores.map((s) => ({ node: s.name, total: s.total, scores: s.scores.map((x) => ({ plugin: x.name, score: x.score })) })),
    ...(e.failureMessage ? { failureMessage: e.failureMessage } : {}),
    text: formatExplanation(e),
  };
}
