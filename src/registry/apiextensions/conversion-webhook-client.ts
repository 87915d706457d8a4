/**
 * The call to a CRD's conversion webhook: the webhook client admission webhooks use
 * (admission/webhook-client.ts: apiserver pkg/util/webhook), with no client timeout
 * (webhook_converter.go sets none), the answer read as client-go's rest.Result.Into reads it, and
 * `service` targets resolved through the cluster's Services and Endpoints.
 */
import type https from 'node:https';
import type { WebhookClientConfig } from 'kubernetes-types/apiextensions/v1.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { ObjectGetter } from '../../network/service-endpoint.js';
import type { PodEndpointDialer } from '../../network/pod-endpoint-dial.js';
import { newWebhookAgent, postToWebhook, type WebhookAnswer } from '../../admission/webhook-client.js';

/** errors.NewGenericServerResponse's message for an answer that is neither 2xx nor a Status. */
function genericServerMessage(code: number, serverMessage: string): string {
  switch (code) {
    case 409: return 'the server reported a conflict';
    case 404: return 'the server could not find the requested resource';
    case 400: return 'the server rejected our request for an unknown reason';
    case 401: return 'the server has asked for the client to provide credentials';
    case 403: return serverMessage;
    case 406: return !serverMessage || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
    case 415: return serverMessage;
    case 405: return 'the server does not allow this method on the requested resource';
    case 422: return 'the server rejected our request due to an error in our request';
    case 503: return 'the server is currently unable to handle the request';
    case 504: return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429: return 'the server has received too many requests and has asked us to try again later';
    default:
      return code >= 500 ? `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`
        : `the server responded with the status code ${code} but did not return more information`;
  }
}

function parseJSON(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (e) {
    throw new Error(`couldn't get version/kind; json parse error: ${(e as Error).message}`, { cause: e });
  }
}

/** rest.Result.Into: the decoded answer, or the error client-go makes of it. */
function readAnswer({ code, contentType, body }: WebhookAnswer): unknown {
  let status: { kind?: unknown; status?: unknown; message?: unknown } | undefined;
  try {
    const v = JSON.parse(body) as unknown;
    if (typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status') status = v as typeof status;
  } catch { /* not a Status */ }
  if (code < 200 || code > 206) {
    if (status) throw new Error(typeof status.message === 'string' ? status.message : '');
    const text = contentType.split(';')[0]!.trim().toLowerCase() === 'text/plain' ? body.slice(0, 1024).trim() : 'unknown';
    throw new Error(genericServerMessage(code, text));
  }
  if (!body.length) throw new Error(`0-length response with status code: ${code} and content type: ${contentType}`);
  if (status && status.status !== 'Success') throw new Error(typeof status.message === 'string' ? status.message : '');
  return parseJSON(body);
}

/**
 * The conversion webhook clients of one server: `service` targets reached through the Services and
 * Endpoints `getObject` reads, one keep-alive agent per CRD, replaced when the CRD's client
 * configuration changes.
 */
export class ConversionWebhookClients {
  private readonly agents = new Map<string, { config: string; agent: https.Agent }>();

  /** `podEndpoints`: how endpoints that are emulated pods are reached, once the server has it. */
  constructor(private readonly getObject: ObjectGetter, private readonly podEndpoints: () => PodEndpointDialer | undefined = () => undefined) {}

  /**
   * Posts a ConversionReview to the CRD's webhook and returns the decoded answer; a failure throws
   * the error Go's client returns (`Post "<url>": <cause>` for transport errors).
   */
  async post(crdName: string, config: WebhookClientConfig, review: unknown): Promise<unknown> {
    const podEndpoints = this.podEndpoints();
    const answer = await postToWebhook({ clientConfig: config, agent: this.agentFor(crdName, config) }, this.getObject, JSON.stringify(review),
      podEndpoints ? { podEndpoints } : {});
    return readAnswer(answer);
  }

  /** Closes the connections of a CRD that no longer converts through a webhook. */
  release(crdName: string): void {
    this.agents.get(crdName)?.agent.destroy();
    this.agents.delete(crdName);
  }

  private agentFor(crdName: string, config: WebhookClientConfig): https.Agent {
    const key = JSON.stringify(config);
    const cached = this.agents.get(crdName);
    if (cached?.config === key) return cached.agent;
    cached?.agent.destroy();
    const agent = newWebhookAgent(config);
    this.agents.set(crdName, { config: key, agent });
    return agent;
  }
}
