/**
 * A `winkube up` process that a test kills (`kill -9`) and starts again on its data directory, with
 * HTTPS requests to whichever incarnation is up (a new port each time, the same CA and admin
 * credentials from the data directory).
 */
import { Agent, request } from 'node:https';
import { credentials, startCluster, type TestCluster } from './cluster.js';

export interface ApiAnswer { status: number; body: string }

export class RestartableServer {
  private cluster?: TestCluster;
  private agent?: Agent;

  constructor(readonly name: string, private readonly dataDir: string, private readonly args: string[]) {}

  get up(): boolean { return this.cluster !== undefined; }

  /** The incarnation up now, for kubectl. */
  get current(): TestCluster {
    if (!this.cluster) throw new Error(`${this.name} is down`);
    return this.cluster;
  }

  async start(): Promise<void> {
    const cluster = await startCluster(this.dataDir, this.args);
    const c = credentials(cluster);
    this.agent = new Agent({ ca: c.ca, cert: c.cert, key: c.key, keepAlive: true });
    this.cluster = cluster;
  }

  /** `kill -9`: no drain, no goodbye; requests in flight are cut. */
  async kill(): Promise<void> {
    const cluster = this.cluster;
    this.cluster = undefined;
    this.agent?.destroy();
    await cluster?.stop('SIGKILL');
  }

  /** SIGTERM, as an operator stops it; resolves with its exit code. */
  async stop(): Promise<number | null> {
    const cluster = this.cluster;
    this.cluster = undefined;
    const code = await cluster?.stop('SIGTERM');
    this.agent?.destroy();
    return code ?? null;
  }

  output(): string { return this.cluster?.output() ?? ''; }

  /** One request to the incarnation up now; rejects when none is, or the connection fails. */
  request(method: string, path: string, body?: unknown, timeoutMs = 15_000): Promise<ApiAnswer> {
    const { cluster, agent } = this;
    if (!cluster || !agent) return Promise.reject(new Error(`${this.name} is down`));
    return new Promise((resolve, reject) => {
      const req = request({
        host: '127.0.0.1', port: cluster.port, method, path, agent, timeout: timeoutMs,
        headers: { Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  /**
   * A watch request: each line is handed to onLine; resolves when the stream ends (how it ended), rejects
   * when it could not be opened. `abort` ends it from the test's side.
   */
  stream(path: string, onLine: (line: string) => void, signal: AbortSignal): Promise<{ status: number; body?: string; ended: string }> {
    const { cluster, agent } = this;
    if (!cluster || !agent) return Promise.reject(new Error(`${this.name} is down`));
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: cluster.port, method: 'GET', path, agent, signal, headers: { Accept: 'application/json' } }, (res) => {
        const status = res.statusCode ?? 0;
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buffered += d;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (status === 200 && line) onLine(line);
          }
        });
        res.on('end', () => resolve(status === 200 ? { status, ended: 'end' } : { status, body: buffered, ended: 'refused' }));
        res.on('error', (e) => resolve({ status, ended: e.message }));
        res.on('aborted', () => resolve({ status, ended: 'aborted' }));
      });
      req.on('error', reject);
      req.end();
    });
  }
}
