/** The flowcontrol.apiserver.k8s.io/v1 shapes the filter reads (k8s.io/api/flowcontrol/v1 types.go). */

export interface Subject {
  /** User, Group or ServiceAccount. */
  kind: string;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces: string[] | null;
}

export interface NonResourcePolicyRule { verbs: string[]; nonResourceURLs: string[] }

export interface PolicyRulesWithSubjects {
  subjects: Subject[] | null;
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchemaCondition {
  type?: string; status?: string; lastTransitionTime?: string; reason?: string; message?: string;
}

export interface FlowSchema {
  metadata: { name?: string; uid?: string; annotations?: Record<string, string> };
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence: number;
    distinguisherMethod?: { type: string }; // ByUser or ByNamespace
    rules?: PolicyRulesWithSubjects[];
  };
  status?: { conditions?: FlowSchemaCondition[] };
}

export interface QueuingConfiguration { queues: number; handSize: number; queueLengthLimit: number }

export interface PriorityLevelConfiguration {
  metadata: { name?: string; uid?: string; annotations?: Record<string, string> };
  spec: {
    type: string; // Exempt or Limited
    limited?: {
      nominalConcurrencyShares: number | null;
      limitResponse: { type: string; queuing?: QueuingConfiguration }; // type: Queue or Reject
      lendablePercent?: number;
      borrowingLimitPercent?: number;
    };
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  };
  status?: { conditions?: FlowSchemaCondition[] };
}

/** What classification looks at (upstream's RequestDigest: RequestInfo and user.Info). */
export interface RequestDigest {
  user: { name: string; groups: string[] };
  isResourceRequest: boolean;
  /** Lower-case verb: get, list, watch, create, update, patch, delete, deletecollection (or the HTTP method for non-resource requests). */
  verb: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  /** The URL path, for non-resource requests. */
  path: string;
}
