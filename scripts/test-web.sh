#!/usr/bin/env bash
# The web build's tests (issue 25), run by scripts/test.sh after the native suite:
#   1. builds the web module (scripts/build-web.sh; the dependency prefix is cached);
#   2. serves a test site from 127.0.0.1 (python3 -m http.server) and loads its pages in headless
#      Chromium, WebGL 1 through SwiftShader (tests/web/run_page.mjs, DevTools protocol on a pipe):
#      a. shaders.html compiles and links every shader program the modules build, as recorded by
#         the native nft_shader_sources (the same input as the offline GLSL ES 1.00 check);
#      b. the demo page (web/demo/): tmt_bookI's target image and video chosen in its file inputs,
#         it shows the target found (without the data: that it loads the module);
#      c. track.html tracks the first 120 frames of tmt_bookI and of the built-in synthetic
#         sequence through the JavaScript API, drawing each; the corners are compared with the
#         native nft_replay's on the same frames (PNG, lossless) and must lie within 0.5 px, the
#         same frames found;
#      d. recognition.html: the recognition service's JavaScript client (web/recognition.js)
#         against `nft-recognition serve` on another origin (a catalogue of three samples, one
#         Dask worker, a token, --cors-origin): a Session without targets asks it on the synthetic
#         frames' first and tracks graf1 from the second, corners within 2 px of native; a wrong
#         token, an unreachable service, the rate limit and a corrupt model
#         (tests/web/check_recognition.py);
#   3. prints the numbers docs/results.md quotes: module size gzipped, tracker time per frame in the
#      browser against native, and (measured, not judged) the detection lane alone on tmt_bookI
#      with SURF-ES in WebGL against llvmpipe and with the CPU lanes in wasm against native.
# The server and the browser are stopped by their process ids.
#
#   scripts/test-web.sh [--native-build DIR] [--web-build DIR] [--frames N]
#     --native-build DIR  the native release build (default build/release: nft_replay,
#                         tests/nft_shader_sources)
#     --web-build DIR     the web build (default build/web)
#     --frames N          frames per sequence (default 120)
# Needs the real data folder ($NFT_DATA_DIR or ../shared/data); without it the tmt_bookI case is
# skipped with a message (CI always has it: .ci/run checks).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

native=build/release
web=build/web
frames=120
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --native-build) native="${2:?}"; shift 2 ;;
    --web-build) web="${2:?}"; shift 2 ;;
    --frames) frames="${2:?}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test-web: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for exe in "$native/apps/nft_replay" "$native/tests/nft_shader_sources"; do
  [ -x "$exe" ] || { echo "test-web: $exe not found: build the release preset first (cmake --build --preset release)" >&2; exit 1; }
done
command -v chromium >/dev/null || { echo "test-web: chromium not found: run scripts/install-deps.sh" >&2; exit 1; }
native="$(cd "$native" && pwd)"

scripts/build-web.sh --build-dir "$web"
web="$(cd "$web" && pwd)"

work="$(mktemp -d)"
server_pid=""
service_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  # The recognition service stops its Dask workers itself on SIGTERM.
  if [ -n "$service_pid" ]; then kill "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
site="$work/site"
mkdir -p "$site"
ln -s "$web/web" "$site/nft"
for f in tests/web/*.html tests/web/*.js; do ln -s "$root/$f" "$site/$(basename "$f")"; done

# --- Inputs: the shader programs, and each case's frames with the native corners ---------------
"$native/tests/nft_shader_sources" "$site/programs" "$root" >/dev/null
(cd "$site/programs" && ls *.vert | sed 's/\.vert$//' |
  python3 -c 'import json, sys; print(json.dumps([l.strip() for l in sys.stdin if l.strip()]))' > index.json)

printf 'output:\n  codec: "png "\n' > "$work/png-frames.yaml"  # --out NAME/%04d.png: lossless frames
# export_frames SEQUENCE TARGET [nft_replay input arguments...]: the first $frames frames as PNG
export_frames() {
  local sequence="$1" target="$2"
  shift 2
  mkdir -p "$site/$sequence/frames"
  ln -s "$(realpath "$target")" "$site/$sequence/target.${target##*.}"
  "$native/apps/nft_replay" --config "$work/png-frames.yaml" --no-render --frames "$frames" --progress 0 \
    "$@" --out "$site/$sequence/frames/%04d.png" >/dev/null 2>"$work/$sequence-export.log" ||
    { cat "$work/$sequence-export.log" >&2; exit 1; }
}
cases=()
measured=()
# add_case NAME SEQUENCE CONFIG_JSON [measure]: the native corners of a sequence's frames with a
# configuration (JSON is YAML: the same text configures nft_replay and the page). A case is judged
# (corners within 0.5 px of native) unless "measure" says it is only measured.
# With INIT_QUAD=x1,y1,...,x4,y4 in the environment the target is the first frame's region inside
# that quad instead (nft_replay --init-quad; the page's Session.addTargetFromFrame); with
# CHECK_GEOMETRY=1 the page also checks addTarget's geometry (tests/web/track.js).
add_case() {
  local name="$1" sequence="$2" config="$3" kind="${4:-judge}"
  printf '%s\n' "$config" > "$work/$name-config.yaml"
  local target_args=(--target "$site/$sequence/target."*)
  [ -n "${INIT_QUAD:-}" ] && target_args=(--init-quad "$INIT_QUAD")
  "$native/apps/nft_replay" --config "$work/$name-config.yaml" --video "$site/$sequence/frames" \
    "${target_args[@]}" --no-render --progress 0 --poses "$work/$name-native.csv" >/dev/null
  python3 - "$site" "$sequence" "$config" "${INIT_QUAD:-}" "${CHECK_GEOMETRY:-}" > "$site/$name.json" <<'EOF'
import json, os, sys
site, sequence, config, quad, geometry = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
frames = sorted(os.listdir(os.path.join(site, sequence, "frames")))
target = [f for f in os.listdir(os.path.join(site, sequence)) if f.startswith("target.")][0]
case = {"target": f"{sequence}/{target}", "frames": [f"{sequence}/frames/{f}" for f in frames],
        "config": config, "render": True}
if quad:
    xy = [float(v) for v in quad.split(",")]
    case["initQuad"] = [[xy[i], xy[i + 1]] for i in range(0, 8, 2)]
if geometry:
    case["checkGeometry"] = True
print(json.dumps(case))
EOF
  if [ "$kind" = measure ]; then measured+=("$name"); else cases+=("$name"); fi
}

data="${NFT_DATA_DIR:-../shared/data}"
graf=/usr/share/doc/opencv-doc/examples/data/graf1.png
[ -f "$graf" ] || { echo "test-web: $graf not found: install opencv-doc (scripts/install-deps.sh)" >&2; exit 1; }
export_frames synthetic "$graf"
# (The field of view written out as the default's value: a number read by the web build's parser.)
# CHECK_GEOMETRY: the page also adds the target as a can's label (Session.addTarget's geometry),
# which the Session checks and refuses beside the target it has (a curved target is tracked alone).
CHECK_GEOMETRY=1 add_case synthetic synthetic '{"camera": {"hfov_deg": 6.0e1}}'
if [ -d "$data/video/tmt_bookI" ]; then
  export_frames tmt_bookI "$data/video/tmt_bookI/target.png" \
    --video "$data/video/tmt_bookI/video.mp4" --target "$data/video/tmt_bookI/target.png"
  add_case tmt_bookI tmt_bookI '{}'
  # An instant target (Session.addTargetFromFrame): the first frame's ground-truth quad, as the
  # POT and TMT benchmarks start a tracker.
  INIT_QUAD="$(awk 'NR == 2 { printf "%s,%s,%s,%s,%s,%s,%s,%s", $2, $3, $4, $5, $6, $7, $8, $9 }' \
    "$data/video/tmt_bookI/gt.tsv")" add_case tmt_bookI-init-quad tmt_bookI '{}'
  # Measured only: the detection lane alone on every frame, on each backend — SURF-ES and the GPU
  # matcher in WebGL (SwiftShader) against llvmpipe natively, the CPU lanes in wasm against
  # native. Without the tracking lane's refinement, the last bits of float arithmetic (no SIMD in
  # wasm, another GPU) change which matches RANSAC keeps: corners differ by up to ~2 px there.
  add_case tmt_bookI-detection-gpu tmt_bookI '{"tracking": {"enabled": false}, "descriptor": {"backend": "gpu"}, "matcher": {"backend": "gpu"}}' measure
  add_case tmt_bookI-detection-cpu tmt_bookI '{"tracking": {"enabled": false}, "descriptor": {"backend": "cpu"}, "matcher": {"backend": "cpu"}}' measure
else
  echo "test-web: SKIPPED the tmt_bookI cases: the real data folder '$data' is missing (set NFT_DATA_DIR)"
fi

# --- The server and the pages ------------------------------------------------------------------
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/shaders.html')" 2>/dev/null && break
  sleep 0.2
done
run_page() {
  local url="$1" out="$2"
  shift 2
  node tests/web/run_page.mjs --url "http://127.0.0.1:$port/$url" --out "$out" --timeout 600 "$@"
}

echo "== WebGL 1: every shader program the modules build (headless Chromium, SwiftShader)"
run_page shaders.html "$work/shaders.json"
echo "== The demo page: a target image and a video chosen as a user would, the target found"
demo_status="document.getElementById('status').textContent"
demo_loaded="$demo_status.startsWith('choose')"
if [ -d "$data/video/tmt_bookI" ]; then
  run_page nft/demo/index.html "$work/demo.txt" --timeout 180 --files-after "$demo_loaded" \
    --files "#target=$(realpath "$data/video/tmt_bookI/target.png"),#video-file=$(realpath "$data/video/tmt_bookI/video.mp4")" \
    --until "/[(]found, [0-9]+ inliers[)]/.test($demo_status)" --result "$demo_status"
else  # without the data: only that the page loads the module
  run_page nft/demo/index.html "$work/demo.txt" --timeout 120 --until "$demo_loaded" --result "$demo_status"
fi
echo "demo: $(cat "$work/demo.txt")"
for name in "${cases[@]}" "${measured[@]}"; do
  echo "== $name: the first $frames frames in the browser and natively"
  run_page "track.html?case=$name.json" "$work/$name-web.json"
done

# --- The recognition service's JavaScript client (web/recognition.js, issue 48) ------------------
# A catalogue of three of OpenCV's samples (graf1 among them, which the synthetic frames show),
# served by `nft-recognition serve` on this machine with one Dask worker, a token, and the page
# server's origin allowed (--cors-origin): the page calls it from another origin, as an app would.
echo "== The recognition client: the synthetic frames recognised by the service and tracked"
ls "$native"/python/nft.*.so >/dev/null 2>&1 ||
  { echo "test-web: the Python module is not built in $native/python (the recognition service needs it)" >&2; exit 1; }
mkdir -p "$work/catalogue"
{
  echo "graf1 $graf 0.2"
  echo "box /usr/share/doc/opencv-doc/examples/data/box.png 0.2"
  echo "fruits /usr/share/doc/opencv-doc/examples/data/fruits.jpg 0.2"  # not building.jpg: the frames' background
} > "$work/catalogue/targets.txt"
PYTHONPATH="$native/python" service/nft-recognition build "$work/catalogue/targets.txt" --out "$work/catalogue/cat" \
  >"$work/catalogue/build.log" 2>&1 || { cat "$work/catalogue/build.log" >&2; exit 1; }
service_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="web-test-token-$RANDOM-$RANDOM-$RANDOM"  # at least 16 characters, as serve requires
printf '%s\n' "$token" > "$work/catalogue/token"
PYTHONPATH="$native/python" service/nft-recognition serve "$work/catalogue/cat" --port "$service_port" --workers 1 \
  --token-file "$work/catalogue/token" --cors-origin "http://127.0.0.1:$port" >"$work/catalogue/serve.log" 2>&1 &
service_pid=$!
for _ in $(seq 300); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$service_port/health')" 2>/dev/null && break
  kill -0 "$service_pid" 2>/dev/null || { cat "$work/catalogue/serve.log" >&2; echo "test-web: the service exited" >&2; exit 1; }
  sleep 0.4
done
run_page "recognition.html?case=synthetic.json&service=http://127.0.0.1:$service_port&token=$token" \
  "$work/recognition.json" --timeout 300
recognition_ok=0
python3 tests/web/check_recognition.py --result "$work/recognition.json" --native "$work/synthetic-native.csv" \
  --target graf1 || recognition_ok=1

results_ok=0
python3 tests/web/check_results.py --shaders "$work/shaders.json" \
  --module "$web/web/nft_web.js" "$web/web/nft_web.wasm" "$web/web/nft.js" \
  $(for name in "${cases[@]}"; do echo "--case $name $work/$name-web.json $work/$name-native.csv"; done) \
  $(for name in "${measured[@]}"; do echo "--measure $name $work/$name-web.json $work/$name-native.csv"; done) ||
  results_ok=1
[ "$results_ok" = 0 ] && [ "$recognition_ok" = 0 ]
