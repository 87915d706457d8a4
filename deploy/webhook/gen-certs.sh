#!/bin/sh
# Makes a CA and a serving certificate for the winkube webhook with openssl,
# for clusters without cert-manager (see cert-manager/ for that variant).
#
#   gen-certs.sh [-n NAMESPACE] [-s SERVICE] [-o DIR] [--ip IP]... [--days N] [--install]
#
# Writes DIR/ca.crt, ca.key, tls.crt, tls.key and ca-bundle.b64 (the caBundle
# of the webhook configurations). The certificate names the Service as the API
# server dials it (SERVICE.NAMESPACE.svc) and, with --ip, addresses for a
# webhook reached by url. With --install it also creates or updates the
# Secret winkube-webhook-tls in NAMESPACE and sets the caBundle of the
# winkube webhook configurations that exist, with kubectl.
set -eu

namespace=winkube-webhook
service=winkube-webhook
out=./webhook-certs
days=365
ips=""
install=false

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    -n|--namespace) namespace=$2; shift 2 ;;
    -s|--service) service=$2; shift 2 ;;
    -o|--out) out=$2; shift 2 ;;
    --ip) ips="$ips,IP:$2"; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --install) install=true; shift ;;
    -h|--help) usage ;;
    *) echo "gen-certs.sh: unknown argument $1" >&2; usage ;;
  esac
done

mkdir -p "$out"
umask 077
openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days 3650 \
  -keyout "$out/ca.key" -out "$out/ca.crt" -subj "/CN=winkube-webhook-ca" 2>/dev/null
openssl req -new -nodes -newkey rsa:2048 -sha256 \
  -keyout "$out/tls.key" -out "$out/tls.csr" -subj "/CN=$service.$namespace.svc" 2>/dev/null
cat > "$out/tls.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service,DNS:$service.$namespace,DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local$ips
EXT
openssl x509 -req -sha256 -days "$days" -in "$out/tls.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" \
  -CAcreateserial -out "$out/tls.crt" -extfile "$out/tls.ext" 2>/dev/null
rm -f "$out/tls.csr" "$out/tls.ext" "$out/ca.srl"
base64 < "$out/ca.crt" | tr -d '\n' > "$out/ca-bundle.b64"
echo "wrote $out/ca.crt, $out/tls.crt, $out/tls.key and $out/ca-bundle.b64 for $service.$namespace.svc"

if [ "$install" = true ]; then
  kubectl create secret tls winkube-webhook-tls -n "$namespace" --cert="$out/tls.crt" --key="$out/tls.key" \
    --dry-run=client -o yaml | kubectl apply -f -
  bundle=$(cat "$out/ca-bundle.b64")
  for kind in validatingwebhookconfiguration mutatingwebhookconfiguration; do
    if kubectl get "$kind" winkube-lint >/dev/null 2>&1; then
      kubectl patch "$kind" winkube-lint --type=json \
        -p "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$bundle\"}]"
    fi
  done
fi
