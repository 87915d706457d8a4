/**
 * webhookConverter.Convert (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go):
 * custom resources converted between versions by the CRD's conversion webhook, only the objects not
 * already in the desired version sent, a list in one call, the answer checked and each object's
 * metadata restored but for its labels and annotations.
 */
import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { applyConvertedObjects, conversionReviewRequest, convertedObjectsFromResponse, gvkString, objectsToConvert } from './conversion-review.js';
import type { ConversionWebhookClients } from './conversion-webhook-client.js';

/** isEmptyUnstructuredObject: an object with only apiVersion and kind converts without the webhook. */
function isEmpty(obj: KObject): boolean {
  const keys = Object.keys(obj);
  return keys.length === 2 && 'kind' in obj && 'apiVersion' in obj;
}

export class WebhookConverter {
  private readonly crdName: string;
  private readonly reviewVersions: string[];
  private readonly clientConfig: NonNullable<NonNullable<NonNullable<CustomResourceDefinition['spec']['conversion']>['webhook']>['clientConfig']>;

  constructor(crd: CustomResourceDefinition, private readonly clients: ConversionWebhookClients) {
    const webhook = crd.spec.conversion?.webhook;
    this.crdName = crd.metadata?.name ?? '';
    this.reviewVersions = webhook?.conversionReviewVersions ?? [];
    this.clientConfig = webhook?.clientConfig ?? {};
  }

  /**
   * The objects in `desiredAPIVersion`. `listKind` set: they are a list's items, converted in one
   * call and named in errors by the list's kind; otherwise one object.
   */
  async convert(objects: KObject[], desiredAPIVersion: string, listKind?: string): Promise<KObject[]> {
    if (!listKind && objects.length === 1 && isEmpty(objects[0]!)) return objects;
    const sent = objectsToConvert(objects, desiredAPIVersion);
    const uid = randomUUID();
    const request = conversionReviewRequest(this.reviewVersions, sent, desiredAPIVersion, uid);
    if (!sent.length) return objects;
    const inGVK = listKind ? gvkString(sent[0]!.apiVersion, listKind) : gvkString(objects[0]!.apiVersion, objects[0]!.kind);
    let converted: unknown[];
    try {
      const answer = await this.clients.post(this.crdName, this.clientConfig, request.body);
      converted = convertedObjectsFromResponse(request.version, uid, answer);
    } catch (e) {
      throw new Error(`conversion webhook for ${inGVK} failed: ${(e as Error).message}`, { cause: e });
    }
    return applyConvertedObjects(objects, desiredAPIVersion, converted, listKind ? inGVK : undefined);
  }
}
