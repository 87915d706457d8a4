import { readFileSync } from 'node:fs';
import type { IOptions } from 'etcd3';
import { DEFAULT_ETCD_PREFIX } from './etcd-keys.js';

/** kube-apiserver's `--etcd-*` flags. */
export interface EtcdOptions {
  /** `--etcd-servers`: the members' URLs. */
  servers: readonly string[];
  /** `--etcd-prefix`: what every key starts with (`/registry`). */
  prefix?: string;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS to the members. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** How long a unary call may take before it fails (kube-apiserver's request timeout is 60s; etcd answers in ms). */
const CALL_TIMEOUT_MS = 30_000;

export function etcdPrefix(opts: EtcdOptions): string {
  return opts.prefix ?? DEFAULT_ETCD_PREFIX;
}

/** The etcd3 client's options for these flags; the key files are read now so a wrong path fails at start. */
export function etcdClientOptions(opts: EtcdOptions): IOptions {
  if (opts.servers.length === 0) throw new Error('--etcd-servers must be specified');
  const read = (file: string | undefined) => (file ? readFileSync(file) : undefined);
  const ca = read(opts.caFile);
  const cert = read(opts.certFile);
  const key = read(opts.keyFile);
  if ((cert === undefined) !== (key === undefined)) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  // Without a CA file, https:// members are checked against the system's roots (the client's default).
  if (cert && !ca) throw new Error('--etcd-cafile must be given with --etcd-certfile');
  return {
    hosts: [...opts.servers],
    ...(ca ? { credentials: { rootCertificate: ca, privateKey: key, certChain: cert } } : {}),
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
  };
}
