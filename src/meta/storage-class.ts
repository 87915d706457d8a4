/** storageutil.IsDefaultAnnotation: the GA or beta default-class annotation set to "true". */
const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

export function isDefaultStorageClass(sc: { metadata?: { annotations?: Record<string, string> } } | undefined): boolean {
  const a = sc?.metadata?.annotations;
  return !!a && DEFAULT_CLASS_ANNOTATIONS.some((k) => a[k] === 'true');
}
