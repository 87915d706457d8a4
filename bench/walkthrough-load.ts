/**
 * `npm run bench:walkthrough-load`: the HPA walkthrough's load on a real
 * `winkube up --metrics-server`: php-apache, its Service, and one busybox
 * pod running `while sleep 0.01; do wget -q -O- http://php-apache; done`.
 * Prints the rate the loop reaches in the model (requests php-apache
 * logged), what `kubectl top pod` shows, and the real CPU the winkube
 * process spends: over 30 s idle, then over 30 s with the loop running.
 * Figures, not assertions: they depend on the machine.
 */
import { readFileSync } from 'node:fs';
import { kubectlOk, removeDir, startCluster, type TestCluster } from '../test/helpers/cluster.js';
import { PHP_APACHE_MANIFEST } from '../test/helpers/php-apache.js';

const SECONDS = Number(process.env.SECONDS_PER_PHASE ?? 30);
/** utime + stime of a process, in seconds (Linux /proc; clock ticks of 100 Hz). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function served(cluster: TestCluster): Promise<number> {
  const logs = await kubectlOk(cluster, ['logs', 'deployment/php-apache']);
  return logs.split('\n').filter((l) => l.includes('"GET / HTTP/1.1" 200')).length;
}

async function main(): Promise<void> {
  process.env.WINKUBE_METRIC_RESOLUTION ??= '5s';
  const cluster = await startCluster(undefined, ['--metrics-server']);
  const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
  try {
    const pid = cluster.proc.pid!;
    await ok(['apply', '-f', '-'], PHP_APACHE_MANIFEST);
    await ok(['rollout', 'status', 'deployment/php-apache', '--timeout=60s']);
    await sleep(5_000);
    const idle0 = cpuSeconds(pid);
    await sleep(SECONDS * 1000);
    const idleCpu = cpuSeconds(pid) - idle0;
    await ok(['run', 'load-generator', '--image=busybox:1.28', '--restart=Never', '--overrides={"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}',
      '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done']);
    await ok(['wait', '--for=condition=Ready', 'pod/load-generator', '--timeout=60s']);
    const n0 = await served(cluster);
    const load0 = cpuSeconds(pid);
    const t0 = Date.now();
    await sleep(SECONDS * 1000);
    const loadCpu = cpuSeconds(pid) - load0;
    const wall = (Date.now() - t0) / 1000;
    const n1 = await served(cluster);
    const top = await ok(['top', 'pod', '-l', 'run=php-apache']);
    console.log(`winkube process CPU over ${SECONDS} s idle (php-apache running, no load): ${idleCpu.toFixed(2)} s (${((idleCpu / SECONDS) * 100).toFixed(1)} % of a core)`);
    console.log(`winkube process CPU over ${wall.toFixed(1)} s with the load generator: ${loadCpu.toFixed(2)} s (${((loadCpu / wall) * 100).toFixed(1)} % of a core)`);
    console.log(`requests php-apache answered: ${n1 - n0} in ${wall.toFixed(1)} s (about; kubectl logs read before and after): ${((n1 - n0) / wall).toFixed(1)}/s`);
    console.log(`kubectl top pod -l run=php-apache:\n${top}`);
  } finally {
    await cluster.stop();
    removeDir(cluster.dataDir);
  }
}

await main();
