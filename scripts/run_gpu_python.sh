#!/usr/bin/env bash
# Runs on a GPU node from the repository root, over .device-python/ (scripts/stage_python.sh): installs the
# wheel into a scratch folder, runs the Python tests (CUDA ones included), and trains the GCN and GAT
# examples against PyG on the GNN graphs and a generated R-MAT graph. Logs and JSON go to OUT_DIR.
# Usage: scripts/run_gpu_python.sh OUT_DIR [tests|gcn|gat|all] [R-MAT scale and edges, default 20 16000000]
set -uo pipefail
out=${1:?output folder}; what=${2:-all}
scale=${3:-20}; edges=${4:-16000000}
mkdir -p "$out"
site=/tmp/rsh-site
python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target "$site" .device-python/rsh-*.whl || exit 1
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
