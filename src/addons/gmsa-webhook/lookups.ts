/**
 * What the GMSA webhook asks the API, through a client acting as the webhook's service account
 * (windows-gmsa admission-webhook/kube_client.go at 993de21).
 */
import type { LocalSubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { localsubjectaccessreviews } from '../../client/resources.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { goMarshal } from '../../apimachinery/go-json.js';
import type { GMSALookups } from './admit.js';
import { serviceAccountGroups, serviceAccountUsername } from '../../apimachinery/service-account-user.js';

export const gmsacredentialspecs: ResourceRef = { group: 'windows.k8s.io', version: 'v1', resource: 'gmsacredentialspecs', kind: 'GMSACredentialSpec', namespaced: false };

export function clientLookups(client: Client): GMSALookups {
  return {
    async mayUse(serviceAccount, namespace, credSpecName) {
      // serviceaccount.UserInfo(namespace, name, ""): the account's user name and its two groups.
      const review: LocalSubjectAccessReview = {
        apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview',
        metadata: { namespace },
        spec: {
          resourceAttributes: { namespace, verb: 'use', group: 'windows.k8s.io', version: 'v1', resource: 'gmsacredentialspecs', name: credSpecName },
          user: serviceAccountUsername(namespace, serviceAccount),
          groups: serviceAccountGroups(namespace),
        },
      };
      try {
        const answer = await client.resource(localsubjectaccessreviews).create(namespace, review);
        return { allowed: answer.status?.allowed === true && answer.status.denied !== true, reason: answer.status?.reason ?? '' };
      } catch (e) {
        return { allowed: false, reason: `error when checking authz access: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
    async credSpecContents(name) {
      let spec;
      try {
        spec = await client.resource(gmsacredentialspecs).get('', name);
      } catch (e) {
        // isNotFoundError: the error text ends with "not found".
        if (isNotFound(e)) return { code: 404, message: `cred spec ${name} does not exist` };
        return { code: 500, message: `unable to retrieve the contents of cred spec ${name}: ${e instanceof Error ? e.message : String(e)}` };
      }
      const contents = (spec as Record<string, unknown>).credspec;
      if (contents === undefined || contents === '') return { code: 417, message: `cred spec ${name} does not have a credspec key` };
      return { contents: goMarshal(contents) };
    },
  };
}
