/**
 * A chaos test's watch on one API server, kept up as a client keeps it: a stream that ends (server
 * killed, timeout) or ends with an ERROR event is opened again from the last resourceVersion it
 * delivered; an ERROR 410 (history compacted) is followed by a list, from whose resourceVersion the
 * watch goes on (the updates in between cannot be asked for: they are a gap, noted).
 */
import type { RestartableServer } from './restartable-server.js';
import { CHAOS_LABEL, sleep } from './chaos-writer.js';

export interface SeenEvent { type: string; name: string; rv: number; value: number }
interface WireEvent { type: string; object: { kind?: string; code?: number; metadata?: { name?: string; resourceVersion?: string }; data?: { value?: string } } }

const WATCH_PATH = `/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=${CHAOS_LABEL}%3Dyes`;
const LIST_PATH = `/api/v1/namespaces/default/configmaps?labelSelector=${CHAOS_LABEL}%3Dyes`;

export class ChaosWatch {
  readonly events: SeenEvent[] = [];
  /** ERROR events' Status objects, as sent. */
  readonly errors: unknown[] = [];
  /** How each stream ended, and how often a watch could not be opened. */
  readonly endings: string[] = [];
  /** (from, to]: revisions a 410 made the watch skip by listing. */
  readonly gaps: [number, number][] = [];
  /** An event or bookmark whose resourceVersion was not above the one before: what it was. */
  readonly regressions: string[] = [];
  /** Where the watch started: the list it started from. */
  startRV = 0;
  lastRV = 0;
  private readonly abort = new AbortController();
  private stopped = false;
  private running?: Promise<void>;

  constructor(private readonly server: RestartableServer) {}

  /** Lists, then watches from the list's resourceVersion until stopped. */
  async start(): Promise<void> {
    this.startRV = this.lastRV = await this.list();
    this.running = this.keepWatching();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.running;
  }

  private async list(): Promise<number> {
    for (;;) {
      try {
        const answer = await this.server.request('GET', LIST_PATH);
        if (answer.status === 200) return Number((JSON.parse(answer.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
      } catch { /* down: try again */ }
      await sleep(100);
    }
  }

  private async keepWatching(): Promise<void> {
    while (!this.stopped) {
      let expired = false;
      try {
        const end = await this.server.stream(`${WATCH_PATH}&resourceVersion=${this.lastRV}`, (line) => {
          const e = JSON.parse(line) as WireEvent;
          if (e.type === 'ERROR') {
            this.errors.push(e.object);
            if (e.object.code === 410) expired = true;
            return;
          }
          const rv = Number(e.object.metadata?.resourceVersion);
          if (e.type === 'BOOKMARK') {
            if (rv < this.lastRV) this.regressions.push(`BOOKMARK ${rv} after ${this.lastRV}`);
            this.lastRV = Math.max(this.lastRV, rv);
            return;
          }
          if (!(rv > this.lastRV)) this.regressions.push(`${e.type} ${e.object.metadata?.name} ${rv} after ${this.lastRV}`);
          this.lastRV = Math.max(this.lastRV, rv);
          this.events.push({ type: e.type, name: e.object.metadata?.name ?? '', rv, value: Number(e.object.data?.value) });
        }, this.abort.signal);
        this.endings.push(end.status === 200 ? end.ended : `${end.status} ${end.body ?? ''}`);
      } catch (e) {
        if (this.stopped) return;
        this.endings.push(`not opened: ${(e as Error).message}`);
      }
      if (this.stopped) return;
      if (expired) {
        const from = this.lastRV;
        this.lastRV = await this.list();
        this.gaps.push([from, this.lastRV]);
      } else {
        await sleep(100);
      }
    }
  }
}
