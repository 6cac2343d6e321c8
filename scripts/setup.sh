#!/usr/bin/env bash
# Installs what actorflow needs from Debian's packages (idempotent; run as root or via sudo).
set -euo pipefail
packages=(build-essential cmake pkg-config ccache lld git
          libcaf-dev libasio-dev libboost-test-dev nlohmann-json3-dev libeigen3-dev
          libopenblas-dev libdnnl2 zlib1g-dev libssl-dev libleveldb-dev libcli11-dev
          libprotobuf-dev protobuf-compiler clang-format libfarmhash-dev libre2-dev
          libjpeg62-turbo-dev libpng-dev libgif-dev libicu-dev liblmdb-dev
          dataset-fashion-mnist)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
