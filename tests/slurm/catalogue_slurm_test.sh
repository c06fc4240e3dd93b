#!/usr/bin/env bash
# Integration test of `nft-recognition build --slurm` on a real Slurm (ctest label slurm; issue 48,
# item 1): a single-node cluster (single_node_slurm.sh) trains a 12-target catalogue of OpenCV's
# sample images as a 3-task job array, one shard per task; the catalogue is complete, each shard
# was trained by its own array task of that job, and every shard equals the one a local
# --jobs 2 build of the same list makes (targets, ids, keypoints, descriptors in the index).
# Prints each task's training time (the build time divided by the array's tasks).
#
#   catalogue_slurm_test.sh PYTHON_MODULE_DIR
#
# PYTHON_MODULE_DIR: the build's python/ folder (the nft module the tasks import).
set -euo pipefail

module_dir=$1
scale=${NFT_TEST_TIMEOUT_SCALE:-1}
launcher="$(cd "$(dirname "$0")/../.." && pwd)/service/nft-recognition"
samples=/usr/share/doc/opencv-doc/examples/data
[ -f "$samples/graf1.png" ] || { echo "FAIL: $samples is missing: install Debian's opencv-doc" >&2; exit 1; }
/usr/bin/python3 -c "import faiss" 2>/dev/null || { echo "FAIL: python3-faiss is missing: scripts/install-deps.sh service" >&2; exit 1; }
export PYTHONPATH="$module_dir"

task_log_glob='cat_slurm/slurm/shard-*.log'
# shellcheck source=tests/slurm/single_node_slurm.sh
source "$(dirname "$0")/single_node_slurm.sh"

echo "== the target list: 12 of OpenCV's sample images"
for name in graf1.png box.png building.jpg baboon.jpg fruits.jpg butterfly.jpg home.jpg HappyFish.jpg \
            messi5.jpg aero1.jpg pic1.png board.jpg; do
  echo "${name%.*} $samples/$name 0.2"
done >"$tmp/targets.txt"

echo "== nft-recognition build --slurm: 3 shards, one array task each"
job=$(/usr/bin/python3 "$launcher" build "$tmp/targets.txt" --out "$tmp/cat_slurm" --shards 3 --slurm \
        --partition nfttest --time 00:10:00)
echo "job id: $job"
[[ "$job" =~ ^[0-9]+$ ]] || { echo "expected one job id, got '$job'"; exit 1; }
array_done() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; }
wait_for $((300 * scale)) array_done || { echo "the array did not finish in $((300 * scale)) s"; squeue; exit 1; }
/usr/bin/python3 "$launcher" status "$tmp/cat_slurm" || { echo "the catalogue is incomplete after the array"; exit 1; }

echo "== a second --slurm submits nothing (every shard finished)"
again=$(/usr/bin/python3 "$launcher" build --resume --out "$tmp/cat_slurm" --slurm --partition nfttest)
[ -z "$again" ] || { echo "a rerun submitted job '$again'"; exit 1; }

echo "== the same list locally, --jobs 2"
/usr/bin/python3 "$launcher" build "$tmp/targets.txt" --out "$tmp/cat_local" --shards 3 --jobs 2

echo "== compare"
/usr/bin/python3 - "$tmp" "$job" <<'PY'
import json, subprocess, sys
tmp, job = sys.argv[1:3]
import faiss
seconds = []
for s in range(3):
    a = json.load(open(f"{tmp}/cat_slurm/shard-{s:03d}/targets.json"))
    b = json.load(open(f"{tmp}/cat_local/shard-{s:03d}/targets.json"))
    key = lambda r: [(t["id"], t["name"], t["keypoints"]) for t in r["targets"]]
    assert key(a) == key(b), f"shard {s}: {key(a)} vs {key(b)}"
    assert len(a["targets"]) == 4 and not a["skipped"], f"shard {s}: {a}"
    assert [t["id"] for t in a["targets"]] == [s + 1, s + 4, s + 7, s + 10], f"shard {s}: ids {a['targets']}"
    na = faiss.read_index(f"{tmp}/cat_slurm/shard-{s:03d}/index.faiss").ntotal
    nb = faiss.read_index(f"{tmp}/cat_local/shard-{s:03d}/index.faiss").ntotal
    assert na == nb == a["descriptors"] == sum(t["keypoints"] for t in a["targets"]), (na, nb, a["descriptors"])
    log = open(f"{tmp}/cat_slurm/slurm/shard-{s}.log").read()
    assert f"shard {s}: 4 targets" in log, f"task {s}'s log: {log[-500:]}"
    info = subprocess.run(["scontrol", "-o", "show", "job", f"{job}_{s}"], capture_output=True, text=True).stdout
    fields = dict(f.split("=", 1) for f in info.split() if "=" in f)
    assert fields.get("ArrayJobId") == job and fields.get("ArrayTaskId") == str(s), f"task {s}: {info[:300]}"
    assert fields.get("JobState") == "COMPLETED", f"task {s}: {fields.get('JobState')}"
    seconds.append(a["seconds"])
    print(f"shard {s}: array task {job}_{s}, 4 targets, {a['descriptors']} descriptors, trained in {a['seconds']:.2f} s")
print(f"3 shards == the local build's; training {sum(seconds):.2f} s in all, the longest task {max(seconds):.2f} s")
PY
echo "PASS"
