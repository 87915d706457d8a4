/**
 * One `winkube webhook` process: read the key pair and the cluster, serve,
 * reload the key pair when its files change, stop on SIGTERM/SIGINT.
 */
import { describeCluster } from '../lint/run.js';
import { describeLiveTarget } from '../lint/live-cluster.js';
import { selectRules, UnknownRuleError } from '../lint/engine.js';
import type { ClusterDescription } from '../lint/types.js';
import { ClusterSource } from './cluster-source.js';
import type { WebhookCommandOptions } from './command.js';
import { inCluster, inClusterTarget } from './in-cluster.js';
import { startWebhookServer, WebhookHandler } from './server.js';
import { readKeyPair, reloadKeyPairOnChange, type KeyPair } from './tls-files.js';

/** How often the key pair's files are looked at. */
const TLS_POLL_MS = 5_000;

const log = (line: string): void => { console.error(`winkube webhook: ${line}`); };

/** Where the cluster description comes from, and whether it changes (a live cluster is read again). */
function clusterReader(opts: WebhookCommandOptions): { describe: () => Promise<ClusterDescription>; live: boolean } {
  if (!opts.kubeconfig && !opts.cluster && inCluster({ env: process.env })) {
    return {
      live: true,
      describe: async () => {
        const c = await describeLiveTarget(inClusterTarget({ env: process.env }));
        return opts.gmsa ? { ...c, gmsaWebhook: true } : c;
      },
    };
  }
  return { live: !!opts.kubeconfig, describe: () => describeCluster(opts) };
}

/** Serves until a signal; returns a usage error instead when the command cannot start. */
export async function runWebhook(opts: WebhookCommandOptions): Promise<string | undefined> {
  try {
    selectRules({ enable: opts.enable, disable: opts.disable });
  } catch (e) {
    if (e instanceof UnknownRuleError) return e.message;
    throw e;
  }
  let pair: KeyPair;
  try {
    pair = readKeyPair(opts.tlsCertFile, opts.tlsPrivateKeyFile);
  } catch (e) {
    return `reading the serving key pair: ${(e as Error).message}`;
  }
  const reader = clusterReader(opts);
  const source = new ClusterSource(reader.describe, log);
  await source.start(reader.live ? opts.refreshInterval : 0);
  const handler = new WebhookHandler(source, { enable: opts.enable, disable: opts.disable, warnOnly: opts.warnOnly, mutate: opts.mutate });
  let running;
  try {
    running = await startWebhookServer(pair, handler, opts.port, opts.bindAddress, log);
  } catch (e) {
    source.stop();
    return (e as Error).message;
  }
  const { server } = running;
  const stopWatching = reloadKeyPairOnChange(server, opts.tlsCertFile, opts.tlsPrivateKeyFile, TLS_POLL_MS, log);
  const paths = opts.mutate ? '/validate, /mutate' : '/validate';
  const mode = opts.warnOnly ? ', warn-only' : '';
  console.log(`winkube webhook serving ${paths} on https://${opts.bindAddress}:${running.port} (cluster: ${source.current()?.origin ?? 'not read yet'}${mode})`);
  const stop = (signal: string): void => {
    log(`${signal}: shutting down`);
    stopWatching();
    source.stop();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return undefined;
}
