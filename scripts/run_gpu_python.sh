#!/usr/bin/env bash
# Runs on a GPU node from the repository root, over .device-python/ (scripts/stage_python.sh): installs the
# wheel (or, with RSH_KOKKOS_ROOT=<a Kokkos prefix on the node>, this checkout through pip) into a scratch
# folder, runs the Python tests (CUDA ones included), and trains the GCN and GAT examples against PyG on the
# GNN graphs (.device-python/matrices) and a generated R-MAT graph. Logs and JSON go to OUT_DIR.
# Usage: scripts/run_gpu_python.sh OUT_DIR [tests|gcn|gat|all] [R-MAT scale and edges, default 20 16000000]
set -uo pipefail
out=${1:?output folder}; what=${2:-all}
scale=${3:-20}; edges=${4:-16000000}
mkdir -p "$out"
site=/tmp/rsh-site
if [ -n "${RSH_KOKKOS_ROOT:-}" ]; then
  # From this checkout with the node's own toolchain, as a user installs it: `pip install .` against the Kokkos
  # prefix named (no build isolation: the node has no index to fetch scikit-build-core and nanobind from).
  python3 -m pip install --no-build-isolation --no-deps --no-compile --target "$site" -Cbuild-dir=/tmp/rsh-pip-build \
    -Ccmake.define.Kokkos_ROOT="$RSH_KOKKOS_ROOT" . > "$out/pip_install.log" 2>&1 || { tail -20 "$out/pip_install.log"; exit 1; }
  tail -1 "$out/pip_install.log"
else
  python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target "$site" .device-python/rsh-*.whl || exit 1
fi
export PYTHONPATH=$site PYTHONUNBUFFERED=1
status=0
if [[ $what == tests || $what == all ]]; then
  echo "== Python tests"
  (cd python/tests && python3 -m pytest -q -p no:cacheprovider . 2>&1) | tee "$out/python_tests.log" | tail -15
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
graphs=("$PWD"/.device-python/matrices/*.mtx.gz)
for model in gcn gat; do
  if [[ $what == "$model" || $what == all ]]; then
    echo "== $model: ${#graphs[@]} graphs and R-MAT $scale ($edges edges)"
    (cd python/examples && python3 "$model.py" --graphs "${graphs[@]}" --rmat "$scale" "$edges" \
       --out "$out/$model.json" 2>&1) | tee "$out/$model.log" | grep -v Warning
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
  fi
done
exit $status
