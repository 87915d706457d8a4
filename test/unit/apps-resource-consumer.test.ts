/**
 * registry.k8s.io/e2e-test-images/resource-consumer: its API's answers and
 * log lines as resource_consumer_handler.go writes them (through curl from
 * a Linux pod and curl.exe from a Windows one), Go's number and form
 * parsing behind them, and the CPU a /ConsumeCPU run counts toward the
 * container: millicores/1000 of a core for each of its seconds, several
 * runs adding up, capped by CFS quota or CpuMaximum.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConsumerFlags, resourceConsumer, RESOURCE_CONSUMER_CPU_PER_REQUEST_NS } from '../../src/node/apps/resource-consumer.js';
import { answerConsumer, metricsText } from '../../src/node/apps/resource-consumer-api.js';
import { goAtoi, goFloatF, goFloatV, goParseFloat } from '../../src/node/apps/go-strconv.js';
import { parseGoForm } from '../../src/node/apps/go-form.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { catalogRepository } from '../../src/os/image-catalog.js';
import { formatPlatform } from '../../src/os/images.js';
import { ServedWork } from '../../src/node/usage/served-work.js';
import { containerUsage } from '../../src/node/usage/usage-model.js';
import { appNetwork, CLIENT_IP, drain, SERVER_IP } from '../helpers/app-network.js';

const DATE = 'Date: Sat, 28 Nov 2026 17:16:21 GMT\r\n';
const ERR_HEADERS = 'Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' + DATE;

test('the consumer\'s answers: ConsumeCPU, ConsumeMem, GetCurrentStatus, BumpMetric and Metrics, and its errors', () => {
  const n = appNetwork(8080);
  const p = resourceConsumer(n.server(), 8080);
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
  const curl = (...args: string[]) => n.curl(...args).stdout;
  assert.equal(curl('-si', '-X', 'POST', 'http://web/ConsumeCPU?millicores=250&durationSec=30'),
    `HTTP/1.1 200 OK\r\n${DATE}Content-Length: 41\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nConsumeCPU\n250 millicores\n30 durationSec\n`);
  assert.equal(curl('-s', '-d', 'megabytes=100&durationSec=%2B010', 'http://web/ConsumeMem'), 'ConsumeMem\n100 megabytes\n10 durationSec\n');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/GetCurrentStatus'), 'Warning: not implemented!\nGetCurrentStatus');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/BumpMetric?metric=QPS&delta=1e6&durationSec=60'), 'BumpMetric\nQPS metric\n1e+06 delta\n60 durationSec\n');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/BumpMetric?metric=QPS&delta=0.5&durationSec=60'), 'BumpMetric\nQPS metric\n0.5 delta\n60 durationSec\n');
  assert.equal(curl('-s', 'http://web/Metrics'), '# HELP QPS info message.\n# TYPE QPS gauge\nQPS 1000000.500000\n');
  // Everything but /Metrics wants a POST.
  assert.equal(curl('-si', 'http://web/'), `HTTP/1.1 400 Bad Request\r\n${ERR_HEADERS}Content-Length: 32\r\n\r\nBad request. Not a POST request\n`);
  assert.equal(curl('-s', '-X', 'POST', 'http://web/Foo'), 'unknown function: /Foo\n');
  assert.equal(curl('-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', 'http://web/Foo'), '404');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/ConsumeCPU?millicores=250'), 'not given function argument\n');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/ConsumeCPU?millicores=0.5&durationSec=1'), 'incorrect function argument\n');
  assert.equal(curl('-s', '-X', 'POST', 'http://web/ConsumeCPU?millicores=%zz&durationSec=1'), 'invalid URL escape "%zz"\n');
  // The work runs in a goroutine that logs with the log package's time; errors log nothing.
  assert.equal(drain(p).stderr, '2026/11/28 17:16:21 ConsumeCPU millicores: 250, durationSec: 30\n' +
    '2026/11/28 17:16:21 ConsumeMem megabytes: 100, durationSec: 10\n2026/11/28 17:16:21 GetCurrentStatus\n');
  // From a Windows pod: curl.exe speaks the same HTTP.
  assert.deepEqual(n.run('windows', ['curl.exe', '-s', '-X', 'POST', 'http://web/ConsumeCPU?millicores=100&durationSec=5']),
    { code: 0, stdout: 'ConsumeCPU\n100 millicores\n5 durationSec\n', stderr: '', slept: 0 });
});

test('the handler as a function: the body\'s form values come before the URL\'s, /Metrics answers any method', () => {
  const post = (target: string, body = '', contentType?: string) =>
    answerConsumer({ method: 'POST', target, body, ...(contentType ? { contentType } : {}) }, new Map());
  assert.deepEqual(post('/ConsumeCPU?millicores=1&durationSec=2', 'millicores=300', 'application/x-www-form-urlencoded'), {
    status: 200, body: 'ConsumeCPU\n300 millicores\n2 durationSec\n', httpError: false,
    log: 'ConsumeCPU millicores: 300, durationSec: 2', work: { kind: 'consumeCPU', millicores: 300, durationSec: 2 },
  });
  // A body of another type is not parsed.
  assert.equal(post('/ConsumeCPU?durationSec=2', 'millicores=300', 'text/plain').body, 'not given function argument\n');
  assert.equal(post('/ConsumeCPU?millicores=1;durationSec=2').body, 'invalid semicolon separator in query\n');
  assert.deepEqual(post('/BumpMetric?metric=m&delta=x&durationSec=1'), { status: 400, body: 'incorrect function argument\n', httpError: true });
  assert.equal(answerConsumer({ method: 'GET', target: '/GetCurrentStatus', body: '' }, new Map()).body, 'Bad request. Not a POST request\n');
  assert.equal(answerConsumer({ method: 'GET', target: '/Metrics', body: '' }, new Map([['b', -1], ['a', 2]])).body,
    '# HELP a info message.\n# TYPE a gauge\na 2.000000\n# HELP b info message.\n# TYPE b gauge\nb -1.000000\n');
  assert.equal(metricsText(new Map()), '');
});

test('Go\'s numbers and forms: strconv.Atoi, ParseFloat, %v and %f of a float64, ParseForm', () => {
  assert.deepEqual(['+010', '-3', '9223372036854775807', '9223372036854775808', '1.5', ' 1', ''].map(goAtoi),
    [10n, -3n, 9223372036854775807n, undefined, undefined, undefined, undefined]);
  assert.deepEqual(['1e3', '.5', 'Inf', '-infinity', 'NaN', '0x1p-2', '1e400', '1.2.3', '0x_1p0'].map(goParseFloat),
    [1000, 0.5, Infinity, -Infinity, NaN, 0.25, undefined, undefined, 1]);
  assert.deepEqual([1, 0.5, 123456, 1234567, 1e21, 0.0001, 0.00001, -2.5e-7, NaN, -Infinity, 1 / 3].map(goFloatV),
    ['1', '0.5', '123456', '1.234567e+06', '1e+21', '0.0001', '1e-05', '-2.5e-07', 'NaN', '-Inf', '0.3333333333333333']);
  assert.deepEqual([1, -0.5, 1e21, Infinity].map(goFloatF), ['1.000000', '-0.500000', '1000000000000000000000.000000', '+Inf']);
  const form = parseGoForm({ method: 'POST', target: '/x?a=1&a=2&b=x+y%21&&c', contentType: 'application/x-www-form-urlencoded; charset=utf-8', body: 'a=0' });
  assert.deepEqual([...form.values], [['a', ['0', '1', '2']], ['b', ['x y!']], ['c', ['']]]);
  assert.equal(form.error, undefined);
  assert.equal(parseGoForm({ method: 'POST', target: '/x?a=%4', body: '' }).error, 'invalid URL escape "%4"');
});

test('the image\'s entrypoint runs the consumer, with -port; other commands are the shell\'s', () => {
  const image = 'registry.k8s.io/e2e-test-images/resource-consumer:1.13';
  assert.equal(typeof applicationFor({ image, command: [], args: [] }), 'function');
  assert.equal(typeof applicationFor({ image, command: ['/consumer.exe'], args: ['-port=9000'] }), 'function');
  assert.equal(applicationFor({ image, command: ['/bin/sh'], args: ['-c', 'sleep 1'] }), undefined);
  // A manifest list with Linux architectures and both Windows LTSC builds, as the e2e images have.
  assert.deepEqual(catalogRepository('registry.k8s.io/e2e-test-images/resource-consumer')!.resolveTag('1.13')!.platforms.map(formatPlatform),
    ['linux/amd64', 'linux/arm', 'linux/arm64', 'linux/ppc64le', 'linux/s390x', 'windows/amd64 10.0.17763.1879', 'windows/amd64 10.0.20348.2582']);
  assert.deepEqual([parseConsumerFlags([]), parseConsumerFlags(['--port', '9000']), parseConsumerFlags(['-port=x']), parseConsumerFlags(['-v'])],
    [{ port: 8080 }, { port: 9000 }, undefined, undefined]);
  // Bound on the port it was given.
  const n = appNetwork(9000);
  drain(resourceConsumer(n.server(), 9000));
  assert.equal(n.curl('-s', '-X', 'POST', 'http://web/GetCurrentStatus').stdout, 'Warning: not implemented!\nGetCurrentStatus');
  // A second consumer on the taken port: log.Fatal of ListenAndServe's error.
  assert.deepEqual(drain(resourceConsumer(n.server(), 9000)),
    { stdout: '', stderr: '2026/11/28 17:16:21 listen tcp :9000: bind: address already in use\n', code: 1, slept: 0 });
});

test('a ConsumeCPU run counts millicores/1000 of a core for each of its seconds, on the container\'s clock', () => {
  const n = appNetwork(8080);
  const timers: Array<{ ms: number; fn: () => void }> = [];
  let nowMs = Date.parse('2026-11-28T17:16:21Z');
  const work = new ServedWork();
  const counted: number[] = [];
  drain(resourceConsumer(n.server({
    now: () => new Date(nowMs), after: (ms, fn) => { timers.push({ ms, fn }); },
    served: (ns) => { counted.push(ns); work.record(nowMs, ns); },
  }), 8080));
  const conn = n.net.forPod(CLIENT_IP, { os: 'linux', searches: [] }, new Set()).connect(SERVER_IP, 8080);
  if (conn.kind !== 'connected') assert.fail(conn.kind);
  const post = (target: string) => conn.exchange({ method: 'POST', target, headers: [['Host', 'web']], body: new Uint8Array() });
  // The answer comes at once: the work goes on behind it.
  assert.ok(post('/ConsumeCPU?millicores=300&durationSec=3').settled);
  assert.deepEqual(counted, [300_000_000, RESOURCE_CONSUMER_CPU_PER_REQUEST_NS]);
  assert.deepEqual(timers.map((t) => t.ms), [1000]);
  const tick = () => { nowMs += 1000; timers.shift()!.fn(); };
  tick(); tick();
  assert.deepEqual(counted, [300_000_000, RESOURCE_CONSUMER_CPU_PER_REQUEST_NS, 300_000_000, 300_000_000]);
  assert.equal(timers.length, 0);
  // Nothing to burn: only the request's own cost.
  post('/ConsumeCPU?millicores=-5&durationSec=3');
  post('/ConsumeCPU?millicores=100&durationSec=0');
  assert.deepEqual([counted.length, timers.length], [6, 0]);
  // A bumped metric falls back after its duration.
  post('/BumpMetric?metric=m&delta=2&durationSec=5');
  assert.deepEqual(timers.map((t) => t.ms), [5000]);
  timers.shift()!.fn();
  assert.equal(Buffer.from((post('/Metrics').value as { body: Uint8Array }).body).toString(), '# HELP m info message.\n# TYPE m gauge\nm 0.000000\n');
});

test('two runs of 400m on a 250m/500m pod: 800m of demand, held at the 500m CFS quota on Linux and at CpuMaximum on Windows', () => {
  const w = new ServedWork();
  for (let s = 0; s < 10; s++) { w.record(s * 1000, 400_000_000); w.record(s * 1000 + 500, 400_000_000); }
  const idle = { nanoCores: 1_000_000, workingSetBytes: 8 << 20 };
  const at = (os: 'linux' | 'windows', logicalCPUs: number, ms: number) =>
    containerUsage({ os, logicalCPUs, nodeMemoryBytes: 8 << 30, idle, limits: { cpu: '500m' }, startedAtMs: 0, served: w }, ms);
  const linux = at('linux', 2, 5_000);
  assert.deepEqual([linux.nanoCores, linux.cpuThrottled, linux.usageCoreNanoSeconds], [500_000_000, true, 2_500_000_000]);
  // CpuMaximum 625 of 10000 on 8 CPUs is 500m exactly; on 3 CPUs 1666 of 10000, a little under it.
  const windows = at('windows', 8, 5_000);
  assert.deepEqual([windows.nanoCores, windows.cpuThrottled], [500_000_000, true]);
  assert.equal(at('windows', 3, 5_000).nanoCores, 499_800_000);
  // After the runs: idle again.
  assert.equal(at('windows', 8, 12_000).nanoCores, 1_000_000);
});
