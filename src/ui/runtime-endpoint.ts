/**
 * GET /ui/api/runtime-settings?namespace=NS&name=POD: what `winkube describe-runtime` prints, as JSON for the
 * pod detail (CpuMaximum or CPU shares/quota, the memory limit and what happens beyond it), from the same code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { podRuntimeFrom, RuntimeLookupError, type PodRuntime } from '../node/kubelet/describe-runtime.js';
import { formatRuntimeSettings } from '../node/kubelet/runtime-settings.js';
import { ApiAnswer, type ApiEndpoint } from './api-getter.js';
import { servePodQuery } from './pod-endpoint.js';

export const RUNTIME_PATH = '/ui/api/runtime-settings';

export interface RuntimeView extends PodRuntime {
  /** The same settings as the terminal prints them. */
  text: string;
}

export async function serveRuntime(req: IncomingMessage, res: ServerResponse, api: ApiEndpoint): Promise<void> {
  await servePodQuery(req, res, api, async (get, namespace, name): Promise<RuntimeView> => {
    try {
      const r = await podRuntimeFrom(async (path) => ({ status: 200, body: await get(path) }), namespace, name);
      return { ...r, text: formatRuntimeSettings(r.pod, r.node, r.os, r.cpus, r.containers) };
    } catch (e) {
      // A pod with no node yet has no runtime settings: a plain 400 the page shows as it is.
      if (e instanceof RuntimeLookupError) throw new ApiAnswer(e.status, 'text/plain; charset=utf-8', `${e.message}\n`);
      throw e;
    }
  });
}
