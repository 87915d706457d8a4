/**
 * The tag parsers.ParseImageName finds in an image reference (docker's
 * reference grammar, normalized as ParseNormalizedNamed does): "latest" when
 * neither tag nor digest is given, "" when the reference does not parse.
 * SetDefaults_Container picks imagePullPolicy from it.
 */
const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|${ipv6})(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';

const reDomain = new RegExp(`^${domain}$`);
const reRemainder = new RegExp(`^(${pathComponent}(?:/${pathComponent})*)(?::(${tag}))?(?:@(${digest}))?$`);
const reIdentifier = /^[a-f0-9]{64}$/;

/** splitDockerDomain: the first component is a registry only if it looks like one. */
function splitDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  if (i === -1) return ['docker.io', name];
  const first = name.slice(0, i);
  if (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first) return ['docker.io', name];
  return [first, name.slice(i + 1)];
}

export function imageTag(image: string): string {
  if (!image || reIdentifier.test(image)) return '';
  const [dom, rest] = splitDomain(image);
  if (!reDomain.test(dom)) return '';
  const m = reRemainder.exec(rest);
  if (!m) return '';
  const name = `${dom}/${m[1]}`;
  if (name.length > 255) return '';
  const t = m[2] ?? '';
  const d = m[3] ?? '';
  return !t && !d ? 'latest' : t;
}
