/**
 * The Windows guide's sample web server (fixtures/windows-webserver.yaml) deployed on a test cluster:
 * its retired Docker Hub image declared as the cluster's local Windows image for both node builds
 * (kube-system/winkube-images), the manifest applied, and its pod waited for until it runs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kubectl, rawJSON, type TestCluster } from './cluster.js';

export const WINDOWS_WEBSERVER_MANIFEST = readFileSync(new URL('../../../test/e2e/fixtures/windows-webserver.yaml', import.meta.url), 'utf8');

/**
 * Deploys the sample and waits for its running pod; `applied` is what `kubectl apply` printed.
 * `extraImages`: more winkube-images entries (key to YAML list), e.g. a node's own sandbox image.
 */
export async function deployWindowsWebServer(cluster: TestCluster, extraImages: Record<string, string> = {}): Promise<{ podName: string; podIP: string; applied: string }> {
  const images = await rawJSON(cluster, 'POST', '/api/v1/namespaces/kube-system/configmaps', {
    metadata: { name: 'winkube-images' },
    data: { windowsservercore: '- ref: microsoft/windowsservercore\n  platforms:\n  - {os: windows, architecture: amd64, os.version: 10.0.17763.1879}\n  - {os: windows, architecture: amd64, os.version: 10.0.20348.2582}\n', ...extraImages },
  });
  assert.equal(images.status, 201, JSON.stringify(images.body));
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: WINDOWS_WEBSERVER_MANIFEST });
  assert.equal(r.code, 0, r.stderr);
  for (let i = 0; i < 300; i++) {
    const pods = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dwin-webserver')).body.items as
      { metadata: { name: string }; status?: { podIP?: string; containerStatuses?: { state?: { running?: unknown } }[] } }[];
    const running = pods.find((p) => p.status?.containerStatuses?.[0]?.state?.running && p.status.podIP);
    if (running) return { podName: running.metadata.name, podIP: running.status!.podIP!, applied: r.stdout };
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail('the web server pod runs');
}
