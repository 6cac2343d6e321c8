#!/usr/bin/env bash
# Regenerates the test PKI (never used outside tests): a cluster CA and a node certificate
# it signs, plus a rogue CA and a rogue node certificate that the cluster must refuse.
set -euo pipefail
cd "$(dirname "$0")"
days=36500
for ca in ca rogue_ca; do
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$ca.key" -out "$ca.pem" -days $days \
    -subj "/CN=actorflow test $ca" 2>/dev/null
done
mk() {  # name ca
  openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=actorflow test $1" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days $days 2>/dev/null
  rm -f "$1.csr"
}
mk node ca
mk rogue_node rogue_ca
rm -f ./*.srl
