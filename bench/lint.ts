/**
 * `winkube lint` figures: the time to parse and lint 1,000 manifests (a
 * mix of Linux and Windows Deployments, Services, DaemonSets, Jobs and
 * ConfigMaps, as one multi-document stream) against the default cluster,
 * and the corpus in ../shared/corpus. Target: under 1 s for the 1,000.
 * Run: npm run bench:lint (after the build). Prints one line per figure.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describePools } from '../src/lint/cluster-description.js';
import { lint } from '../src/lint/engine.js';
import { parseManifests } from '../src/lint/parse-manifests.js';
import { readInputs } from '../src/lint/read-inputs.js';
import type { Manifest } from '../src/lint/types.js';

const COUNT = Number(process.env.BENCH_MANIFESTS ?? 1000);

function manifest(i: number): string {
  const win = i % 3 === 0;
  const name = `app-${i}`;
  switch (i % 5) {
    case 0: case 1: return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: team-${i % 7}}
spec:
  replicas: ${1 + (i % 4)}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
${win ? '      nodeSelector: {kubernetes.io/os: windows}\n' : ''}      containers:
      - name: main
        image: ${win ? 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019' : 'nginx:1.27'}
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
        securityContext: {${win ? 'windowsOptions: {runAsUserName: ContainerUser}' : 'runAsUser: 1000, readOnlyRootFilesystem: true'}}
`;
    case 2: return `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: team-${i % 7}}
spec:
  selector: {app: app-${i - 2}}
  ports: [{port: 80, targetPort: 80}]
`;
    case 3: return `apiVersion: ${i % 2 ? 'apps/v1' : 'batch/v1'}
kind: ${i % 2 ? 'DaemonSet' : 'Job'}
metadata: {name: ${name}, namespace: kube-system}
spec:
${i % 2 ? `  selector: {matchLabels: {app: ${name}}}\n` : ''}  template:
    metadata: {labels: {app: ${name}}}
    spec:
${i % 2 ? '' : '      restartPolicy: Never\n'}      containers:
      - {name: agent, image: busybox:1.36, args: [sleep, "3600"]}
`;
    default: return `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}}
data: {key: value-${i}}
`;
  }
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

const text = Array.from({ length: COUNT }, (_, i) => manifest(i)).join('---\n');
const cluster = describePools();
// One warm-up run (module loading, JIT), then the measured one.
lint(parseManifests(text, 'bench.yaml').manifests, [], cluster);
const r = time(() => {
  const parsed = parseManifests(text, 'bench.yaml');
  return { n: parsed.manifests.length, findings: lint(parsed.manifests, parsed.problems, cluster).length };
});
console.log(`lint ${r.value.n} manifests: ${r.ms.toFixed(0)} ms (${r.value.findings} findings; target < 1000 ms)`);

const corpus = join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');
let files: string[] = [];
try { files = readdirSync(corpus); } catch { /* no corpus beside the repository */ }
if (files.length) {
  const c = time(() => {
    const manifests: Manifest[] = [];
    const inputs = readInputs([corpus], () => '');
    for (const input of inputs) manifests.push(...parseManifests(input.text, input.file).manifests);
    return { n: manifests.length, files: inputs.length, findings: lint(manifests, [], cluster).length };
  });
  console.log(`lint the corpus (${c.value.n} manifests in ${c.value.files} files): ${c.ms.toFixed(0)} ms (${c.value.findings} findings)`);
}
