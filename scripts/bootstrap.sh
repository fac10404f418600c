#!/usr/bin/env bash
# Installs the build dependencies from Debian 12's packages (idempotent; run
# as root). CUDA is optional: the toolkit at /usr/local/cuda is used if there.
set -euo pipefail
packages=(cmake g++ make python3 zlib1g-dev libgtest-dev libbenchmark-dev
          libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          clang libclang-rt-14-dev  # the sanitized build and libFuzzer (scripts/sanitize.sh)
          python3-dev python3-pip python3-numpy python3-pytest python3-torch)  # the Python package and its tests
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# nanobind (the Python extension's bindings) is not packaged for Debian 12: from PyPI, for Debian's python3.
if ! /usr/bin/python3 -c "import nanobind" 2>/dev/null; then
  /usr/bin/python3 -m pip install -q --break-system-packages "nanobind>=2.0"
fi
