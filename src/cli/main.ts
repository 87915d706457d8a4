#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { startCluster } from '../cluster/start.js';
import { parseClusterFile } from '../node/cluster-file.js';
import { DEFAULT_LB_POOL, LBPool } from '../network/lb-pool.js';
import { parseSchedulerConfig } from '../scheduler/profile.js';
import { describeRuntime } from '../node/kubelet/describe-runtime.js';
import { registerNodeCommands } from '../node/control/cli.js';
import { registerLintCommand } from '../lint/command.js';
import { registerWebhookCommand } from '../webhook/command.js';
import { registerDoctorCommand } from '../doctor/command.js';
import { parseControllersFlag } from '../controllers/manager.js';
import { loadEncryptionConfig } from '../storage/transformers/encryption-config.js';
import { DEFAULT_ETCD_PREFIX } from '../storage/etcd-keys.js';
import { STORAGE_BACKENDS, type StorageBackendOptions } from '../cluster/storage-backend.js';
import { loadAuditPolicy } from '../api/audit/policy.js';
import { validateAuditLogLimits, type AuditLogOptions } from '../api/audit/log-backend.js';
import { DEFAULT_AUTHORIZATION_MODES, parseAuthorizationModes, type AuthorizationMode } from '../authorization/modes.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535).');
  return n;
}

function lbPool(v: string): string {
  try { LBPool.parse(v); } catch (e) { throw new InvalidArgumentError((e as Error).message); }
  return v;
}

/** `--controllers`, a list pflag's StringSlice way: comma-separated, and repeated flags add to it. */
function controllers(v: string, previous: string[] | undefined): string[] {
  const all = [...(previous ?? []), v];
  try { parseControllersFlag(all); } catch (e) { throw new InvalidArgumentError((e as Error).message); }
  return all;
}

/** `--authorization-mode`: checked as kube-apiserver checks it, before anything starts. */
function authorizationModes(v: string): AuthorizationMode[] {
  try { return parseAuthorizationModes(v); } catch (e) { throw new InvalidArgumentError((e as Error).message); }
}

/** An int flag (pflag's IntVar): the sign is checked later, as upstream does. */
function integer(v: string): number {
  const n = Number(v);
  if (!/^[+-]?\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`invalid argument "${v}": strconv.ParseInt: parsing "${v}": invalid syntax`);
  return n;
}

/** The audit log backend: a policy and a path (upstream audits nothing without either), limits checked first. */
function auditLogOptions(o: { auditPolicyFile?: string; auditLogPath?: string; auditLogMaxage: number; auditLogMaxbackup: number; auditLogMaxsize: number }): AuditLogOptions | undefined {
  const limits = { maxAgeDays: o.auditLogMaxage, maxBackups: o.auditLogMaxbackup, maxSizeMB: o.auditLogMaxsize };
  const errs = validateAuditLogLimits(limits);
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  if (o.auditPolicyFile === undefined || o.auditLogPath === undefined) return undefined;
  return { ...limits, policy: loadAuditPolicy(o.auditPolicyFile), path: o.auditLogPath };
}

function storageBackend(v: string): StorageBackendOptions['kind'] {
  if (!(STORAGE_BACKENDS as readonly string[]).includes(v)) throw new InvalidArgumentError(`must be one of ${STORAGE_BACKENDS.join(', ')}.`);
  return v as StorageBackendOptions['kind'];
}

interface StorageFlags {
  storage: StorageBackendOptions['kind']; etcdServers?: string[]; etcdPrefix: string;
  etcdCafile?: string; etcdCertfile?: string; etcdKeyfile?: string;
}

function storageOptions(o: StorageFlags): StorageBackendOptions {
  if (o.storage === 'sqlite') return { kind: 'sqlite' };
  // kube-apiserver's EtcdOptions.Validate.
  if (!o.etcdServers?.length) throw new Error('--etcd-servers must be specified');
  return {
    kind: 'etcd',
    etcd: { servers: o.etcdServers, prefix: o.etcdPrefix, caFile: o.etcdCafile, certFile: o.etcdCertfile, keyFile: o.etcdKeyfile },
  };
}

const program = new Command('winkube')
  .description('A Kubernetes control plane with emulated Windows and Linux nodes');

program.command('up')
  .description('start the cluster: an HTTPS Kubernetes API server on 127.0.0.1 with state in one SQLite file (or etcd)')
  .option('--port <port>', 'port of the API server (0 picks a free one)', port, 6443)
  .option('--data-dir <dir>', 'where the state, certificates and kubeconfig live', './.winkube')
  .option('--bind-address <ip>', 'address to listen on', '127.0.0.1')
  .option('--config <file>', 'a cluster file (YAML) with the node pools; the default cluster without it')
  .option('--quiet', 'print only the kubeconfig line, and nothing on shutdown')
  .option('--lb-pool <addresses>', 'addresses for LoadBalancer services: a range (first-last) or CIDR, comma-separated', lbPool, DEFAULT_LB_POOL)
  .option('--scheduler-config <file>', 'a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the scheduler')
  .option('--api-only', 'serve the API only: no emulated nodes, scheduler, or workload, service and node controllers')
  .option('--controllers <names>', "kube-controller-manager's --controllers: '*' enables the controllers on by default, 'foo' enables foo, '-foo' disables foo (default *)", controllers)
  .option('--authorization-mode <modes>', "kube-apiserver's --authorization-mode: the authorizers, in order, comma-separated (Node, RBAC, AlwaysAllow, AlwaysDeny); kubeadm's Node,RBAC by default", authorizationModes, [...DEFAULT_AUTHORIZATION_MODES])
  .option('--gmsa', "install sig-windows' GMSACredentialSpec CRD (windows.k8s.io) and GMSA admission webhook, as AKS's --enable-windows-gmsa does")
  .option('--dns-port <port>', 'serve the cluster DNS (the cluster.local zone, UDP and TCP) on 127.0.0.1 at this port (0 picks a free one)', port)
  .option('--metrics-server', 'run metrics-server (v1beta1.metrics.k8s.io behind the aggregator), so kubectl top works, as k3s and managed clusters ship it')
.option('--encryption-provider-config <file>', "kube-apiserver's --encryption-provider-config: an EncryptionConfiguration (apiserver.config.k8s.io/v1) of the resources to encrypt at rest (aescbc, aesgcm, secretbox, identity)")
  .option('--audit-policy-file <file>', "kube-apiserver's --audit-policy-file: an audit.k8s.io/v1 Policy of what the audit log records")
  .option('--audit-log-path <file>', "kube-apiserver's --audit-log-path: the audit log file (- for standard output); nothing is audited without it")
  .option('--audit-log-maxage <days>', 'the days to keep rotated audit log files (0: no limit)', integer, 0)
  .option('--audit-log-maxbackup <count>', 'the rotated audit log files to keep (0: no limit)', integer, 0)
  .option('--audit-log-maxsize <megabytes>', 'the size at which the audit log is rotated (0: 100 MB)', integer, 0)
  .option('--storage <backend>', 'where the cluster state lives: sqlite (one file in the data directory) or etcd (the --etcd-servers)', storageBackend, 'sqlite')
  .option('--etcd-servers <urls>', 'List of etcd servers to connect with (scheme://ip:port), comma separated.', (v: string) => v.split(',').filter((s) => s !== ''))
  .option('--etcd-prefix <prefix>', 'The prefix to prepend to all resource paths in etcd.', DEFAULT_ETCD_PREFIX)
  .option('--etcd-cafile <file>', 'SSL Certificate Authority file used to secure etcd communication.')
  .option('--etcd-certfile <file>', 'SSL certification file used to secure etcd communication.')
  .option('--etcd-keyfile <file>', 'SSL key file used to secure etcd communication.')
  .option('--expose', 'listen on 127.0.0.1 for every NodePort Service (on its nodePort) and LoadBalancer Service (on its port); without it, only for Services annotated winkube.io/expose: "true"')
  .action(async (opts: { port: number; dataDir: string; bindAddress: string; config?: string; quiet?: boolean; lbPool: string; schedulerConfig?: string; apiOnly?: boolean; controllers?: string[]; authorizationMode: AuthorizationMode[]; gmsa?: boolean; dnsPort?: number; expose?: boolean; metricsServer?: boolean; encryptionProviderConfig?: string; auditPolicyFile?: string; auditLogPath?: string; auditLogMaxage: number; auditLogMaxbackup: number; auditLogMaxsize: number } & StorageFlags) => {
    const encryptionConfig = opts.encryptionProviderConfig === undefined ? undefined : loadEncryptionConfig(opts.encryptionProviderConfig);
    const auditLog = auditLogOptions(opts);
    const nodePools = opts.config === undefined ? undefined : parseClusterFile(readFileSync(opts.config, 'utf8'));
    const schedulerConfig = opts.schedulerConfig === undefined ? undefined : parseSchedulerConfig(readFileSync(opts.schedulerConfig, 'utf8'));
    const cluster = await startCluster({ port: opts.port, dataDir: opts.dataDir, bindAddress: opts.bindAddress, nodePools, schedulerConfig, lbPool: opts.lbPool, apiOnly: opts.apiOnly, controllers: opts.controllers, authorizationModes: opts.authorizationMode, gmsa: opts.gmsa, dnsPort: opts.dnsPort, expose: opts.expose, metricsServer: opts.metricsServer, encryptionConfig, auditLog, storage: storageOptions(opts) });
    if (!opts.quiet) console.log(`winkube is up: https://${opts.bindAddress}:${cluster.port} (Kubernetes ${cluster.version})`);
    if (cluster.dnsPort !== undefined && !opts.quiet) console.log(`cluster DNS: 127.0.0.1:${cluster.dnsPort} (udp, tcp)`);
    if (!opts.quiet) console.log(`web view: ${cluster.uiLink}`);
    console.log(`export KUBECONFIG=${cluster.kubeconfigPath}`);
    let stopping = false;
    const stop = (signal: string) => {
      // A second signal exits at once, without waiting for the drain (as upstream's SetupSignalHandler).
      if (stopping) process.exit(1);
      stopping = true;
      if (!opts.quiet) console.error(`${signal}: shutting down`);
      cluster.stop().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

program.command('kubeconfig')
  .description("print a kubeconfig for a user of the cluster: a client certificate signed by the cluster CA, with the user as its common name and the groups as its organizations")
  .requiredOption('--user <name>', 'the user name')
  .option('--group <group>', 'a group of the user (repeatable)', (v: string, previous: string[]) => [...previous, v], [] as string[])
  .option('--data-dir <dir>', 'the data directory of the cluster (its CA and kubeconfig.yaml)', './.winkube')
  .option('--output <file>', 'write the kubeconfig to this file (mode 0600) instead of printing it')
  .action(async (opts: { user: string; group: string[]; dataDir: string; output?: string }) => {
    const { userKubeconfig } = await import('../cluster/user-kubeconfig.js');
    const text = await userKubeconfig(opts.dataDir, opts.user, opts.group);
    if (opts.output === undefined) { process.stdout.write(text); return; }
    writeFileSync(opts.output, text, { mode: 0o600 });
    // An existing file keeps its mode on write: the key inside must not stay readable by others.
    chmodSync(opts.output, 0o600);
  });

program.command('explain-scheduling')
  .description("explain where the scheduler can place a pod: each node's Filter verdicts and the feasible nodes' scores")
  .argument('<pod>', 'the pod name')
  .option('-n, --namespace <ns>', "the pod's namespace (the kubeconfig context's by default)")
  .option('--kubeconfig <file>', 'the kubeconfig to use ($KUBECONFIG or ~/.kube/config by default)')
  .option('--scheduler-config <file>', 'the KubeSchedulerConfiguration the cluster runs with, if not the default')
  .action(async (pod: string, opts: { namespace?: string; kubeconfig?: string; schedulerConfig?: string }) => {
    const { explainScheduling } = await import('../scheduler/explain-client.js');
    console.log(await explainScheduling(pod, opts));
  });

program.command('describe-runtime <pod>')
  .description('print what the emulated kubelet hands the container runtime for a pod (Windows CpuMaximum, Linux CPU shares/quota, memory limits)')
  .option('-n, --namespace <ns>', 'the pod\'s namespace (default: the kubeconfig context\'s)')
  .option('--kubeconfig <file>', 'kubeconfig to read the API with', process.env.KUBECONFIG?.split(':')[0] || './.winkube/kubeconfig.yaml')
  .action(async (pod: string, opts: { namespace?: string; kubeconfig: string }) => {
    process.stdout.write(await describeRuntime(opts.kubeconfig, pod, opts.namespace));
  });
program.command('describe-node-network <node>')
  .description("print a node's network as its CNI and kube-proxy have it: the HNS network (Windows) or devices (Linux), the pods' endpoints, the CNI files, kube-proxy's command line")
  .option('--kubeconfig <file>', 'kubeconfig to read the API with', process.env.KUBECONFIG?.split(':')[0] || './.winkube/kubeconfig.yaml')
  .action(async (node: string, opts: { kubeconfig: string }) => {
    const { describeNodeNetwork } = await import('../node/net/describe-node-network-client.js');
    process.stdout.write(await describeNodeNetwork(opts.kubeconfig, node));
  });
program.command('net').description('the cluster network model').command('check <from> <to>')
  .description('trace one TCP connection (or ICMP echo) through the nodes\' data plane: FROM is a pod (NAME, NS/NAME), node/NAME or an IP; TO also svc/NAME, with :PORT (80) for TCP')
  .option('-n, --namespace <ns>', 'the namespace of pod and Service names', 'default')
  .option('--protocol <protocol>', 'tcp, or icmp for an echo (ping)', 'tcp')
  .option('--data-dir <dir>', 'the data directory of the cluster (its kubeconfig.yaml is used)')
  .option('--kubeconfig <file>', 'an admin kubeconfig of the cluster (default: --data-dir\'s, $KUBECONFIG, ./.winkube/kubeconfig.yaml)')
  .action(async (from: string, to: string, opts: { namespace?: string; dataDir?: string; kubeconfig?: string; protocol?: string }) => {
    const { netCheck } = await import('../node/net/net-check-client.js');
    const r = await netCheck(from, to, opts);
    process.stdout.write(r.out);
    process.stderr.write(r.err);
    process.exitCode = r.code;
  });
program.command('join-config')
  .description('write the files a Windows node needs to join the cluster (kubelet, kube-proxy, containerd, flannel, install.ps1), checked against the cluster')
  .requiredOption('--kubeconfig <file>', 'a kubeconfig of the cluster the node joins')
  .option('--node-name <name>', "the node's name (default: the machine's host name, lowercased)")
  .option('--windows-version <version>', 'Windows Server version of the node: 2019, 2022, 2025, ltsc2019, 1809, 20H2, ... (default 2022)')
  .option('--network <plugin>', "the cluster's CNI: flannel or calico (default: the cluster's)")
  .option('--mode <mode>', 'overlay or l2bridge (default: the cluster\'s)')
  .option('--runtime <runtime>', 'the container runtime: containerd', 'containerd')
  .option('--kubernetes-version <version>', "kubelet and kube-proxy version, such as 1.32.0 (default: the cluster's)")
  .option('--service-cidr <cidr>', "the cluster's service CIDR (needed when the cluster does not show it)")
  .option('--pod-cidr <cidr>', "the cluster's pod CIDR")
  .option('--cluster-dns <ip>', "the cluster DNS Service's address")
  .option('--cluster-domain <domain>', "the cluster's DNS domain")
  .option('--sandbox-image <image>', 'the pause image (containerd sandbox_image, kubelet --pod-infra-container-image)')
  .option('--system-reserved <list>', "the kubelet's --system-reserved (default memory=2Gi)")
  .option('--kube-reserved <list>', "the kubelet's --kube-reserved")
  .option('--windows-priorityclass <class>', "the kubelet's --windows-priorityclass (default ABOVE_NORMAL_PRIORITY_CLASS)")
  .option('--out <dir>', 'where to write the files', './join-config')
  .action(async (opts: import('../joinconfig/command.js').JoinConfigOptions) => {
    const { runJoinConfig } = await import('../joinconfig/command.js');
    const r = await runJoinConfig(opts);
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    process.exitCode = r.code;
  });
registerNodeCommands(program);
registerLintCommand(program);
registerWebhookCommand(program);
registerDoctorCommand(program);

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});
