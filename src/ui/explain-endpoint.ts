/**
 * GET /ui/api/explain-scheduling?namespace=NS&name=POD: `winkube explain-scheduling`'s verdicts and scores for
 * the pod detail. It runs server side because the scheduler's plugins are Node code the bundle does not carry.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { explainPodFrom } from '../scheduler/explain-client.js';
import type { SchedulerConfig } from '../scheduler/profile.js';
import type { ApiEndpoint } from './api-getter.js';
import { servePodQuery } from './pod-endpoint.js';
import { schedulingView } from './scheduling-view.js';

export const EXPLAIN_PATH = '/ui/api/explain-scheduling';

export async function serveExplain(req: IncomingMessage, res: ServerResponse, api: ApiEndpoint, config?: SchedulerConfig): Promise<void> {
  await servePodQuery(req, res, api, async (get, namespace, name) => schedulingView(await explainPodFrom(get, namespace, name, config)));
}
