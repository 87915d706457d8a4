/**
 * The Kubernetes signers of CertificateSigningRequests (k8s.io/api
 * certificates/v1 well-known signer names), shared by validation,
 * admission, the certificate controllers and the kubelets that request
 * their client certificates.
 */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';
