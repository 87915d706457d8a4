/**
 * `winkube up --expose` and the `winkube.io/expose` annotation: NodePort
 * and LoadBalancer Services listen on this machine's 127.0.0.1 (which
 * ports: src/network/host-port-plan.ts). Each accepted connection is a
 * connection from outside the cluster into the network model, its HTTP/1.1
 * bytes relayed as port-forward relays them. Services are followed through
 * an informer; a host port this machine will not give (taken, or
 * privileged) is logged and left out until that Service port is no longer
 * wanted there (deleted, or no longer exposed) and asked for anew.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Node, Service } from 'kubernetes-types/core/v1.js';
import { relayHttp } from '../api/streaming/http-relay.js';
import { InformerFactory } from '../client/informer-factory.js';
import { nodes, services } from '../client/resources.js';
import type { Client } from '../client/types.js';
import { planHostPorts, sameExposure, type Exposure } from '../network/host-port-plan.js';
import type { ClusterNetwork } from '../node/net/cluster-network.js';
import { dialFromOutside } from '../node/net/outside-dial.js';
import { settled } from '../node/exec/port-forward.js';
import { CONTROL_PLANE_LABEL } from '../node/pool.js';
import type { HttpReply } from '../node/shell/net-types.js';

export interface ServiceExposerOptions {
  client: Client;
  /** `--expose`: every NodePort and LoadBalancer Service, not only annotated ones. */
  exposeAll: boolean;
  /** The cluster network model (the kubelets'). */
  network: () => ClusterNetwork | undefined;
  log: (m: string) => void;
  host?: string;
}

export interface RunningServiceExposer {
  /** The host ports listening now, ascending. */
  ports(): number[];
  stop(): Promise<void>;
}

interface Listener { exposure: Exposure; server: Server; sockets: Set<Socket> }

const describe = (e: Exposure) => e.target.kind === 'NodePort'
  ? `Service ${e.namespace}/${e.name} port ${e.target.port} (NodePort ${e.target.nodePort})`
  : `Service ${e.namespace}/${e.name} port ${e.target.port} (LoadBalancer ${e.target.ip}:${e.target.port})`;

const exposureKey = (e: Exposure) => `${e.hostPort}|${describe(e)}`;

export async function startServiceExposer(opts: ServiceExposerOptions): Promise<RunningServiceExposer> {
  const host = opts.host ?? '127.0.0.1';
  const informers = new InformerFactory(opts.client);
  const listeners = new Map<number, Listener>();
  /** Exposures whose bind failed, with the reason, until the Service changes. */
  const failed = new Map<string, string>();
  /** Conflicts already logged, so a resync does not repeat them. */
  let reportedConflicts = new Set<string>();
  let stopped = false;
  let chain = Promise.resolve();
  let queued = false;
  const svcs = informers.forResource(services);
  const nodeObjects = informers.forResource(nodes);
  const serviceList = () => svcs.cache.list('*') as unknown as Service[];

  /** The node the connection enters by: the control plane's, as kind maps host ports to its control-plane node. */
  const nodeAddresses = (): { entry?: string; all: Set<string> } => {
    const all = new Set<string>();
    let entry: string | undefined;
    let entryIsControlPlane = false;
    for (const n of nodeObjects.cache.list('') as unknown as Node[]) {
      const ip = (n.status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address;
      if (!ip) continue;
      all.add(ip);
      const cp = n.metadata?.labels?.[CONTROL_PLANE_LABEL] !== undefined;
      if (entry === undefined || (cp && !entryIsControlPlane)) { entry = ip; entryIsControlPlane = cp; }
    }
    return { entry, all };
  };

  const accept = (port: number, socket: Socket) => {
    const l = listeners.get(port);
    const network = opts.network();
    socket.on('error', () => {});
    if (!l || !network) { socket.destroy(); return; }
    l.sockets.add(socket);
    socket.once('close', () => l.sockets.delete(socket));
    const { entry, all } = nodeAddresses();
    const t = l.exposure.target;
    const conn = entry === undefined ? { kind: 'timeout' as const }
      : dialFromOutside(network, serviceList(), all, entry, t.kind === 'NodePort' ? entry : t.ip, t.kind === 'NodePort' ? t.nodePort : t.port);
    // Refused (no endpoints) and dropped packets both end the host connection with a RST.
    if (conn.kind !== 'connected') { socket.resetAndDestroy(); return; }
    relayHttp({
      onData: (f) => socket.on('data', f),
      onEnd: (f) => socket.on('end', f),
      write: (b) => { socket.write(b); },
      end: () => { socket.end(); },
      reset: () => { socket.resetAndDestroy(); },
    }, (req) => settled<HttpReply>(conn.exchange(req)));
  };

  const close = async (port: number) => {
    const l = listeners.get(port);
    if (!l) return;
    listeners.delete(port);
    for (const s of l.sockets) s.destroy();
    await new Promise<void>((res) => l.server.close(() => res()));
  };

  const open = async (e: Exposure): Promise<string | undefined> => {
    // Half-open: a client that finishes sending still gets the responses to what it sent.
    const server = createServer({ allowHalfOpen: true }, (socket) => accept(e.hostPort, socket));
    const l: Listener = { exposure: e, server, sockets: new Set() };
    try {
      await new Promise<void>((res, rej) => {
        server.once('error', rej);
        server.listen(e.hostPort, host, () => { server.off('error', rej); res(); });
      });
    } catch (err) {
      return (err as Error).message;
    }
    server.on('error', (err) => opts.log(`expose: ${host}:${e.hostPort}: ${err.message}`));
    listeners.set(e.hostPort, l);
    return undefined;
  };

  const sync = async () => {
    if (stopped) return;
    const held = new Map([...listeners].map(([p, l]) => [p, l.exposure]));
    const plan = planHostPorts(serviceList(), opts.exposeAll, held);
    for (const [port, l] of [...listeners]) {
      const want = plan.exposed.get(port);
      if (want && sameExposure(want, l.exposure)) continue;
      // Same Service, new place (a new ingress IP): the listener stays, its connections go to the new target.
      if (want && want.namespace === l.exposure.namespace && want.name === l.exposure.name) { l.exposure = want; continue; }
      await close(port);
      opts.log(`expose: ${host}:${port} no longer exposed for ${describe(l.exposure)}`);
    }
    const wantedKeys = new Set([...plan.exposed.values()].map(exposureKey));
    for (const k of [...failed.keys()]) if (!wantedKeys.has(k)) failed.delete(k);
    for (const [port, e] of plan.exposed) {
      if (listeners.has(port) || failed.has(exposureKey(e)) || stopped) continue;
      const why = await open(e);
      if (why === undefined) { opts.log(`expose: ${host}:${port} -> ${describe(e)}`); continue; }
      failed.set(exposureKey(e), why);
      opts.log(`expose: ${host}:${port} not exposed for ${describe(e)}: ${why}`);
    }
    const conflicts = new Set<string>();
    for (const { exposure, heldBy } of plan.refused) {
      const line = `expose: ${host}:${exposure.hostPort} not exposed for ${describe(exposure)}: the port is exposed for Service ${heldBy.namespace}/${heldBy.name}`;
      conflicts.add(line);
      if (!reportedConflicts.has(line)) opts.log(line);
    }
    reportedConflicts = conflicts;
  };

  const schedule = () => {
    if (queued) return;
    queued = true;
    chain = chain.then(() => { queued = false; return sync(); }).catch((e: unknown) => opts.log(`expose: ${(e as Error).message}`));
  };

  svcs.onEvent(() => schedule());
  await Promise.all([svcs.start(), nodeObjects.start()]);
  schedule();
  await chain;
  return {
    ports: () => [...listeners.keys()].sort((a, b) => a - b),
    async stop() {
      stopped = true;
      informers.stop();
      await chain;
      for (const port of [...listeners.keys()]) await close(port);
    },
  };
}
