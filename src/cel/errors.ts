/** The texts cel-go gives for runtime errors, where the evaluator words them differently. */
export function goErrorText(message: string): string {
  const noKey = /^field not found: (.*)$/.exec(message);
  if (noKey) return `no such key: ${noKey[1]}`;
  if (/^found no matching overload for /.test(message)) return `no such overload`;
  if (message === 'int divide by zero') return 'division by zero';
  if (message === 'int modulus by zero') return 'modulus by zero';
  return message;
}
