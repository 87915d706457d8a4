/**
 * A chaos test's writer: updates ConfigMaps of its own, one request at a time, round-robin over the
 * API servers, and keeps what each answer proved. An answered 200 is an acknowledged write; a write
 * whose answer never came (connection cut, server killed) or was an error is indeterminate, as a
 * linearizability checker counts it: it may or may not have happened.
 */
import type { SeededRandom } from './seeded-random.js';
import type { ApiAnswer, RestartableServer } from './restartable-server.js';

export const CHAOS_LABEL = 'chaos';

export interface ObjectHistory {
  name: string;
  /** Values acknowledged, in order, with the resourceVersion each answer carried. */
  acked: { value: number; rv: number }[];
  /** Values sent whose outcome is unknown, in order. */
  indeterminate: number[];
  /** The last value sent. */
  sent: number;
}

export interface FailedAnswer { status: number; body: string }

export function configMap(name: string, writer: number, value: number): unknown {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { [CHAOS_LABEL]: 'yes' } },
    data: { writer: String(writer), value: String(value) },
  };
}

export class ChaosWriter {
  readonly objects: ObjectHistory[];
  /** Answers that were not 200, as the servers sent them. */
  readonly failures: FailedAnswer[] = [];
  /** Requests that got no answer. */
  unanswered = 0;
  private stopped = false;
  private turn = 0;

  constructor(readonly index: number, names: string[], private readonly servers: readonly RestartableServer[], private readonly random: SeededRandom) {
    this.objects = names.map((name) => ({ name, acked: [], indeterminate: [], sent: 0 }));
  }

  /** Creates the objects (value 0) before the chaos starts. */
  async create(): Promise<void> {
    for (const o of this.objects) {
      const answer = await this.servers[0]!.request('POST', '/api/v1/namespaces/default/configmaps', configMap(o.name, this.index, 0));
      if (answer.status !== 201) throw new Error(`creating ${o.name}: ${answer.status} ${answer.body}`);
      o.acked.push({ value: 0, rv: resourceVersionOf(answer) });
    }
  }

  /** Writes until stopped. */
  async run(): Promise<void> {
    while (!this.stopped) {
      const o = this.objects[this.random.between(0, this.objects.length - 1)]!;
      const server = this.servers[(this.index + this.turn++) % this.servers.length]!;
      const value = ++o.sent;
      let answer: ApiAnswer | undefined;
      try {
        answer = await server.request('PUT', `/api/v1/namespaces/default/configmaps/${o.name}`, configMap(o.name, this.index, value));
      } catch {
        this.unanswered++;
      }
      if (answer?.status === 200) {
        o.acked.push({ value, rv: resourceVersionOf(answer) });
      } else {
        o.indeterminate.push(value);
        if (answer) this.failures.push({ status: answer.status, body: answer.body });
        // A client backs off before trying again.
        await sleep(100);
      }
      await sleep(this.random.between(5, 40));
    }
  }

  stop(): void { this.stopped = true; }
}

export function resourceVersionOf(answer: ApiAnswer): number {
  const obj = JSON.parse(answer.body) as { metadata?: { resourceVersion?: string } };
  return Number(obj.metadata?.resourceVersion);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
