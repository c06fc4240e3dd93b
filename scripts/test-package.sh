#!/usr/bin/env bash
# shellcheck disable=SC2317  # the check functions are called through check()
# The library as an app gets it (issue 19): builds libnft, installs it into a fresh temporary
# prefix, builds examples/minimal (and examples/camera) against that prefix only — the CMake
# package and the pkg-config file, from copies of the examples outside the source tree —, runs
# them on the real videos and checks that minimal's corners equal nft_replay's on every frame.
# scripts/test.sh runs it after the test suite, on build/release.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/test-package.sh [--build-dir DIR] [--static] [--keep] [--camera-frames N]

Installs libnft from DIR (configured and built there first when needed) into a temporary prefix,
and checks the installed package as an app uses it:
  - the install tree: the library, the public headers only, nftConfig.cmake, nft.pc;
  - the programs in bin/ (nft_replay, nft_train, nft_eval, nft_preview, nft_gpuinfo, nft_describe,
    nft_bench), each with its manual page in share/man/man1 and a working --help, and the
    installed nft_replay on a few frames of its synthetic input;
  - find_package(nft) fails without the prefix, and for an incompatible version;
  - examples/minimal, built with CMake against the prefix only (CMAKE_PREFIX_PATH), run on the
    real videos cmu_book and tmt_bookI: every frame's corners equal nft_replay's within 0.01 px,
    and the target found in the same frames;
  - the same minimal.cpp built with `c++ ... $(pkg-config --cflags --libs nft)` prints the same;
  - examples/camera, built against the prefix and run under xvfb-run on the video, writes its
    screenshot (it fails itself on a blank one).
  - the GStreamer plugin, where the build tree makes it: lib/gstreamer-1.0/libgstnft.so, found by
    gst-inspect-1.0 through GST_PLUGIN_PATH (every property of nfttrack documented), and
    gst-launch-1.0 with it on cmu_book: an nft-result message per frame, the target found in
    the frames the installed nft_replay finds it in (of the same GStreamer-decoded frames);
  - the Python module nft, where the build tree makes it: imported from the prefix's
    lib/python3.X/dist-packages by Debian's python3 with nothing else on PYTHONPATH, its corners
    on cmu_book equal minimal's, and examples/python/*.py run from a copy outside the source tree;
  - the recognition service's client, where the build tree makes it: examples/recognition built
    with find_package(nft COMPONENTS recognition) and with pkg-config nft-recognition finds the
    cmu_book cover through a stand-in service (the Session starting with no target), and reports
    an unreachable service; find_package fails naming libnft-recognition-dev without it.
Ends with "N passed, M failed"; exits 1 if any check failed.

Options:
  --build-dir DIR    build tree of the project, relative to the repository root (default
                     build/release; configured with the
                     release preset when it does not exist; any other new DIR as a Release
                     build without tests)
  --static           test a static libnft (-DNFT_SHARED=OFF); the build tree must be (or will be
                     configured as) static; default DIR then build/package-static
  --keep             keep the temporary folder (prefix, builds, outputs, logs); it is always
                     kept when a check fails
  --camera-frames N  frames examples/camera runs for (default 60)
  -h, --help         this help

Environment: NFT_DATA_DIR, the real data folder (default ../shared/data from the repository root).
EOF
}

build_dir=""
static=0
keep=0
camera_frames=60
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; shift ;;
    --static) static=1; shift ;;
    --keep) keep=1; shift ;;
    --camera-frames) camera_frames="${2:?--camera-frames needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test-package: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ -z "$build_dir" ]; then
  if [ "$static" = 1 ]; then build_dir=build/package-static; else build_dir=build/release; fi
fi
build_dir="$(realpath -m "$build_dir")"
data="$(realpath -m "${NFT_DATA_DIR:-../shared/data}")"

work="$(mktemp -d "${TMPDIR:-/tmp}/nft-package.XXXXXX")"
prefix="$work/prefix"
mkdir -p "$work/logs" "$work/src" "$work/out"
passed=0
failed=0
skipped=0
trap 'echo "test-package: stopped by an unexpected error at line $LINENO; outputs in $work" >&2' ERR

finish() {
  echo
  if [ "$failed" -gt 0 ] || [ "$keep" = 1 ]; then
    echo "test-package: outputs and logs kept in $work"
  else
    rm -rf "$work"
  fi
  local summary="test-package: $passed passed, $failed failed"
  [ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
  echo "$summary"
  if [ "$failed" -eq 0 ]; then exit 0; fi
  exit 1
}

# check NAME COMMAND...: runs one check, its output into logs/NAME.log (shown when it fails).
# The commands are functions whose every step ends in `|| return 1` (set -e does not apply
# inside a tested function).
check() {
  local name="$1"
  shift
  local log="$work/logs/${name//[^A-Za-z0-9_.-]/_}.log"
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "PASS  $name"
    grep '^>> ' "$log" | sed 's/^>> /      /' || true
  else
    failed=$((failed + 1))
    echo "FAIL  $name (log: $log)"
    tail -n 40 "$log" | sed 's/^/      /'
    return 1
  fi
}

# The programs `cmake --install` installs (apps/CMakeLists.txt), each with a manual page.
programs=(nft_replay nft_train nft_eval nft_preview nft_gpuinfo nft_describe nft_bench)
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
# The examples are configured as a stranger's app would be: nothing of ours in the environment.
clean_env=(env -u CMAKE_PREFIX_PATH -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH -u nft_DIR)

# --- 1. The project's library, installed ---------------------------------------------------------
build_library() {
  local want_shared=ON
  [ "$static" = 1 ] && want_shared=OFF
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    if [ "$build_dir" = "$root/build/release" ] && [ "$static" = 0 ]; then
      cmake --preset release || return 1
    else
      cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DNFT_BUILD_TESTS=OFF -DNFT_SHARED="$want_shared" || return 1
    fi
  fi
  local shared
  shared="$(sed -n 's/^NFT_SHARED:BOOL=//p' "$build_dir/CMakeCache.txt")"
  if [ "$static" = 1 ] && [ "$shared" != OFF ]; then
    echo "$build_dir builds a shared libnft (NFT_SHARED=$shared); --static needs a static build tree"
    return 1
  fi
  local targets=(nft "${programs[@]}")
  grep -q '^NFT_HELP2MAN:FILEPATH=.*help2man$' "$build_dir/CMakeCache.txt" && targets+=(nft_man_pages)
  # The Python module, where the build tree makes it (python/CMakeLists.txt: pybind11 found, not a
  # sanitizer build): `cmake --install` installs it too.
  grep -q '^NFT_PYTHON_MODULE:INTERNAL=ON' "$build_dir/CMakeCache.txt" && targets+=(nft_python)
  # The GStreamer plugin, where GStreamer was found (gst/CMakeLists.txt): installed too.
  grep -q '^NFT_GST_PLUGIN:INTERNAL=ON' "$build_dir/CMakeCache.txt" && targets+=(gstnft)
  # The recognition service's client (session/recognition/), unless configured out: installed too.
  grep -q '^NFT_BUILD_RECOGNITION_CLIENT:BOOL=ON' "$build_dir/CMakeCache.txt" && targets+=(nft_recognition_lib)
  cmake --build "$build_dir" --target "${targets[@]}" || return 1
}

install_library() {
  cmake --install "$build_dir" --prefix "$prefix" || return 1
  (cd "$prefix" && find . -mindepth 1 | sort) | tee "$work/out/install-tree.txt" | sed 's/^/>> /'
  local must
  for must in include/nft/nft.h include/nft/session.h include/nft/config/config.h \
              include/nft/config/config_error.h; do
    [ -f "$prefix/$must" ] || { echo "missing: $must"; return 1; }
  done
  [ -n "$(find "$prefix" -name nftConfig.cmake)" ] || { echo "missing: nftConfig.cmake"; return 1; }
  [ -n "$(find "$prefix" -name nftConfigVersion.cmake)" ] || { echo "missing: nftConfigVersion.cmake"; return 1; }
  [ -n "$(find "$prefix" -name nft.pc)" ] || { echo "missing: nft.pc"; return 1; }
  [ -n "$(find "$prefix" -name 'libnft.so*' -o -name libnft.a)" ] || { echo "missing: libnft"; return 1; }
  # Only the public headers: include/nft/*.h, include/nft/config/config{,_error}.h and, with the
  # GStreamer plugin, GstNftMeta's include/nft/gst/meta.h.
  local stray
  stray="$(cd "$prefix" && find include -type f |
           grep -v -E '^include/nft/[a-z_]+\.h$|^include/nft/config/config(_error)?\.h$|^include/nft/gst/meta\.h$')" || true
  [ -z "$stray" ] || { echo "headers that are not public were installed: $stray"; return 1; }
}

# The programs in bin/, each with its manual page (help2man, cmake/NftManPages.cmake) and --help;
# the installed nft_replay tracks 10 frames of its synthetic input (nothing of the build tree).
installed_programs() {
  local p page brief
  for p in "${programs[@]}"; do
    [ -x "$prefix/bin/$p" ] || { echo "missing: bin/$p"; return 1; }
    page="$prefix/share/man/man1/$p.1.gz"
    [ -f "$page" ] || { echo "missing: share/man/man1/$p.1.gz"; return 1; }
    "${clean_env[@]}" "$prefix/bin/$p" --help >"$work/out/$p-help.txt" 2>&1 || { cat "$work/out/$p-help.txt"; return 1; }
    grep -q "^Usage: " "$work/out/$p-help.txt" || { echo "$p --help printed no usage"; return 1; }
    # The page's NAME line begins with the first words of the program's own --help.
    brief="$(head -n 1 "$work/out/$p-help.txt" | sed 's/^[^:]*: //' | cut -d' ' -f1-2)"
    grep -qF "$p \\- $brief" <(zcat "$page") || { echo "$page has no NAME line '$p \\- $brief...'"; zcat "$page" | head; return 1; }
  done
  for p in default.yaml profiles/phone.yaml profiles/board.yaml; do
    [ -f "$prefix/share/nft/config/$p" ] || { echo "missing: share/nft/config/$p"; return 1; }
  done
  (cd "$work" && "${clean_env[@]}" "$prefix/bin/nft_replay" --synthetic-frames 10 --no-render --progress 0 \
     >"$work/out/installed-replay.txt" 2>&1) || { cat "$work/out/installed-replay.txt"; return 1; }
  grep -q "success 100.0% at 5 px" "$work/out/installed-replay.txt" ||
    { cat "$work/out/installed-replay.txt"; echo "the installed nft_replay lost the synthetic target"; return 1; }
  echo ">> ${#programs[@]} programs in bin/, each with --help and share/man/man1/<program>.1.gz; installed nft_replay: $(grep -o 'success [^,]*at 5 px' "$work/out/installed-replay.txt")"
}

echo "== libnft from $build_dir, installed into $prefix =="
check "build libnft and the programs" build_library || finish
check "install into a fresh prefix" install_library || finish
check "the programs and their manual pages installed" installed_programs || true
if [ -n "$(find "$prefix" -name 'libnft.so*')" ]; then kind=shared; else kind=static; fi
pc_dir="$(dirname "$(find "$prefix" -name nft.pc | head -n 1)")"
lib_dir="$(dirname "$pc_dir")"
replay="$build_dir/apps/nft_replay"

# --- 2. examples/minimal through the CMake package --------------------------------------------
cp -r "$root/examples/minimal" "$work/src/minimal"

package_required() {
  # Without the prefix, find_package(nft REQUIRED) must fail: the build below can only have found
  # the library in the prefix.
  mkdir -p "$work/empty"
  if "${clean_env[@]}" cmake -S "$work/src/minimal" -B "$work/build-noprefix" "${generator[@]}" \
       -DCMAKE_PREFIX_PATH="$work/empty" >"$work/out/noprefix.txt" 2>&1; then
    cat "$work/out/noprefix.txt"
    echo "examples/minimal configured without the installed prefix: nft was found elsewhere"
    return 1
  fi
  grep -q '"nft"' "$work/out/noprefix.txt" || { cat "$work/out/noprefix.txt"; return 1; }
  echo ">> without the prefix: find_package(nft) fails, as it must"
  # An incompatible version (the next minor: nftConfigVersion.cmake is SameMinorVersion).
  local version major minor
  version="$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")"
  major="${version%%.*}"
  minor="$(echo "$version" | cut -d. -f2)"
  mkdir -p "$work/src/version"
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(nft %s.%s REQUIRED)\n' \
    "$major" "$((minor + 1))" >"$work/src/version/CMakeLists.txt"
  if "${clean_env[@]}" cmake -S "$work/src/version" -B "$work/build-version" \
       -DCMAKE_PREFIX_PATH="$prefix" >"$work/out/version.txt" 2>&1; then
    echo "find_package(nft $major.$((minor + 1))) accepted version $version"
    return 1
  fi
  echo ">> find_package(nft $major.$((minor + 1))) refuses $version, as it must"
}

build_minimal() {
  "${clean_env[@]}" cmake -S "$work/src/minimal" -B "$work/build-minimal" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON || return 1
  cmake --build "$work/build-minimal" || return 1
  local nft_dir
  nft_dir="$(sed -n 's/^nft_DIR:PATH=//p' "$work/build-minimal/CMakeCache.txt")"
  case "$nft_dir" in
    "$prefix"/*) echo ">> nft_DIR = $nft_dir" ;;
    *) echo "find_package(nft) found $nft_dir, not the prefix"; return 1 ;;
  esac
  # Nothing of the source tree on the compile line: only the prefix, OpenCV and the copy.
  if grep -F -- "$root" "$work/build-minimal/compile_commands.json"; then
    echo "the minimal build refers to the source tree $root"
    return 1
  fi
}

# compare_corners A B: per frame, found in both or neither, corners within 0.01 px. A and B are
# nft_replay --poses CSVs or minimal's output.
compare_corners() {
  python3 - "$1" "$2" <<'EOF'
import re, sys

def load(path):
    frames = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("frame,"):
                continue
            m = re.match(r"frame (\d+): (.*)$", line)
            if m:  # minimal: "frame N: UL x y UR x y LR x y LL x y rvec ... tvec ..." or "not found"
                rest = m.group(2)
                if rest == "not found":
                    frames[int(m.group(1))] = None
                else:
                    v = rest.split()
                    frames[int(m.group(1))] = [float(v[i]) for i in (1, 2, 4, 5, 7, 8, 10, 11)]
                continue
            cols = line.split(",")  # nft_replay --poses: frame,state,ulx,...,lly,...
            frames[int(cols[0])] = [float(c) for c in cols[2:10]] if cols[2] else None
    return frames

a, b = load(sys.argv[1]), load(sys.argv[2])
if sorted(a) != sorted(b) or not a:
    print(f"frames differ: {len(a)} in {sys.argv[1]}, {len(b)} in {sys.argv[2]}")
    sys.exit(1)
disagree = [n for n in a if (a[n] is None) != (b[n] is None)]
both = [n for n in a if a[n] is not None and b[n] is not None]
diff, worst = 0.0, None
for n in both:
    d = max(abs(x - y) for x, y in zip(a[n], b[n]))
    if d > diff:
        diff, worst = d, n
neither = len(a) - len(both) - len(disagree)
print(f">> {len(a)} frames compared: found in both {len(both)}, in neither {neither}, "
      f"found/not-found disagreements {len(disagree)}; max corner difference {diff:.4f} px"
      + (f" (frame {worst})" if worst is not None else "") + " (tolerance 0.01)")
if disagree:
    print("frames found by one only:", disagree[:20])
sys.exit(0 if not disagree and diff <= 0.01 else 1)
EOF
}

minimal_equals_replay() {
  local name="$1" target="$2" video="$3"
  if [ ! -f "$target" ] || [ ! -f "$video" ]; then
    echo "missing data: $target, $video (set NFT_DATA_DIR)"
    return 1
  fi
  "$work/build-minimal/minimal" "$target" "$video" >"$work/out/minimal-$name.txt" || return 1
  "$replay" --target "$target" --video "$video" --poses "$work/out/replay-$name.csv" --no-render \
    --progress 0 || return 1
  compare_corners "$work/out/replay-$name.csv" "$work/out/minimal-$name.txt" || return 1
}

minimal_errors() {
  # A wrong argument count prints the usage; a missing target is an nft::Error: message, exit 1.
  local out status
  out="$("$work/build-minimal/minimal" 2>&1)" && { echo "no arguments: exit 0"; return 1; }
  echo "$out" | grep -q '^usage: ' || { echo "no arguments: $out"; return 1; }
  status=0
  out="$("$work/build-minimal/minimal" "$work/no-such-target.png" "$data/video/cmu_book/book.mp4" 2>&1)" || status=$?
  if [ "$status" != 1 ] || ! echo "$out" | grep -q 'no-such-target.png'; then
    echo "missing target: exit $status, $out"
    return 1
  fi
  echo ">> usage without arguments; '$out', exit 1"
}

# examples/minimal/hello.cpp, the README's 25-line app: the target found in the frames minimal
# finds it in, and the pose's translation as minimal prints it (to the millimetre).
hello_equals_minimal() {
  [ -f "$work/out/minimal-cmu_book.txt" ] || { echo "no minimal output to compare with"; return 1; }
  "$work/build-minimal/hello" "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4" \
    >"$work/out/hello-cmu_book.txt" || return 1
  python3 - "$work/out/minimal-cmu_book.txt" "$work/out/hello-cmu_book.txt" <<'PY' || return 1
import re, sys
def load(path, pattern):
    out = {}
    for line in open(path):
        m = re.match(r"frame (\d+): (.*)$", line.strip())
        if m:
            t = re.search(pattern, m.group(2))
            out[int(m.group(1))] = [float(v) for v in t.groups()] if t else None
    return out
minimal = load(sys.argv[1], r"tvec (\S+) (\S+) (\S+)")
hello = load(sys.argv[2], r"t = (\S+) (\S+) (\S+)")
assert sorted(minimal) == sorted(hello) and minimal, f"frames: {len(minimal)} and {len(hello)}"
bad = [f for f in minimal if (minimal[f] is None) != (hello[f] is None) or
       (minimal[f] and max(abs(a - b) for a, b in zip(minimal[f], hello[f])) > 0.0015)]
assert not bad, f"frames where hello and minimal differ: {bad[:10]}"
print(f">> {len(hello)} frames, found in {sum(v is not None for v in hello.values())}, as minimal")
PY
}

echo "== examples/minimal against the installed package only (find_package(nft), $kind) =="
check "find_package(nft) needs the prefix and a compatible version" package_required || true
if check "examples/minimal builds against the prefix" build_minimal; then
  check "minimal = nft_replay on cmu_book" minimal_equals_replay cmu_book \
    "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4" || true
  check "minimal = nft_replay on tmt_bookI" minimal_equals_replay tmt_bookI \
    "$data/video/tmt_bookI/target.png" "$data/video/tmt_bookI/video.mp4" || true
  check "minimal reports usage and nft::Error" minimal_errors || true
  check "hello (the README's app) finds the cover where minimal does" hello_equals_minimal || true
fi

# --- 3. The same minimal.cpp through pkg-config ------------------------------------------------
minimal_pkg_config() {
  local flags pc_static=()
  [ "$kind" = static ] && pc_static=(--static)
  flags="$("${clean_env[@]}" PKG_CONFIG_PATH="$pc_dir" pkg-config "${pc_static[@]}" --cflags --libs nft)" || return 1
  echo ">> pkg-config ${pc_static[*]} --cflags --libs nft: $(echo "$flags" | cut -c1-120)..."
  # shellcheck disable=SC2086  # the flags are words
  c++ -std=c++17 -O2 -o "$work/minimal-pc" "$work/src/minimal/minimal.cpp" $flags -Wl,-rpath,"$lib_dir" || return 1
  "$work/minimal-pc" "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4" \
    >"$work/out/minimal-pc-cmu_book.txt" || return 1
  compare_corners "$work/out/minimal-cmu_book.txt" "$work/out/minimal-pc-cmu_book.txt" || return 1
}
echo "== examples/minimal through pkg-config (nft.pc) =="
check "minimal built with pkg-config nft = minimal built with CMake" minimal_pkg_config || true

# --- 4. examples/camera: a window under a virtual X server -------------------------------------
camera_example() {
  cp -r "$root/examples/camera" "$work/src/camera" || return 1
  "${clean_env[@]}" cmake -S "$work/src/camera" -B "$work/build-camera" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" || return 1
  cmake --build "$work/build-camera" || return 1
  local exe="$work/build-camera/camera"
  if [ ! -x "$exe" ]; then
    exe="$(find "$work/build-camera" -maxdepth 1 -type f -executable | head -n 1)"
    [ -n "$exe" ] || { echo "examples/camera built no program"; return 1; }
  fi
  local shot="$work/out/camera-screenshot.png"
  timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" "$exe" \
    --video "$data/video/cmu_book/book.mp4" --target "$data/video/cmu_book/cv_cover.jpg" \
    --frames "$camera_frames" --screenshot "$shot" || return 1
  [ -s "$shot" ] || { echo "no screenshot $shot"; return 1; }
  [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "$shot is not a PNG"; return 1; }
  # The program checks its screenshot is not blank; this is a second, cruder look: a frame of
  # the video compresses to about 400 KB of PNG, a uniform picture to a few KB.
  local bytes
  bytes="$(stat -c %s "$shot")"
  if [ "$bytes" -lt 50000 ]; then
    echo "$shot is only $bytes bytes: an almost uniform picture, not the video with augmentations"
    return 1
  fi
  echo ">> $camera_frames frames in a window, screenshot $bytes bytes"
}
# --- The GStreamer plugin from the prefix ---------------------------------------------------------
gst_plugin="$(find "$prefix" -path '*/gstreamer-1.0/libgstnft.so' | head -n 1)"
# gst-launch-1.0 and gst-inspect-1.0 with the prefix's plugin folder only, and a registry of our own.
gst_env=("${clean_env[@]}" GST_PLUGIN_PATH="$(dirname "${gst_plugin:-/}")" GST_REGISTRY="$work/gst-registry.bin")

gst_inspect() {
  "${gst_env[@]}" gst-inspect-1.0 nfttrack >"$work/out/gst-inspect.txt" 2>&1 || { cat "$work/out/gst-inspect.txt"; return 1; }
  grep -qE "Filename +$gst_plugin\$" "$work/out/gst-inspect.txt" ||
    { echo "gst-inspect-1.0 found nfttrack elsewhere than $gst_plugin:"; grep Filename "$work/out/gst-inspect.txt"; return 1; }
  local p
  for p in target targets width-m config calibration hfov draw; do
    grep -qE "^  $p +: .{40,}" "$work/out/gst-inspect.txt" || { echo "gst-inspect-1.0 nfttrack: property $p undocumented"; return 1; }
  done
  "${gst_env[@]}" gst-inspect-1.0 nftgloverlay >"$work/out/gst-inspect-gl.txt" 2>&1 ||
    { cat "$work/out/gst-inspect-gl.txt"; echo "gst-inspect-1.0 does not find nftgloverlay"; return 1; }
  # The licence the build configured (gst/CMakeLists.txt: NFT_GST_LICENSE).
  local licence shown
  licence="$(sed -n 's/^NFT_GST_LICENSE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
  shown="$(sed -n 's/^ *License *//p' "$work/out/gst-inspect.txt")"
  [ -n "$licence" ] && [ "$shown" = "$licence" ] ||
    { echo "gst-inspect-1.0 nfttrack shows License '$shown', the build configured NFT_GST_LICENSE '$licence'"; return 1; }
  echo ">> gst-inspect-1.0 nfttrack: $gst_plugin, 7 properties documented, License $shown; nftgloverlay found"
}

# The installed plugin on cmu_book: its found frames equal the installed nft_replay's on the same
# decoded frames (GStreamer's GRAY8, the luma nfttrack tracks, as PNG frames).
gst_launch_equals_replay() {
  local video="$data/video/cmu_book/book.mp4" target="$data/video/cmu_book/cv_cover.jpg"
  [ -f "$video" ] && [ -f "$target" ] || { echo "missing data: $video, $target (set NFT_DATA_DIR)"; return 1; }
  mkdir -p "$work/gst-frames"
  "${gst_env[@]}" gst-launch-1.0 -q filesrc location="$video" ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 ! \
    pngenc compression-level=1 ! multifilesink location="$work/gst-frames/%05d.png" || return 1
  "${clean_env[@]}" "$prefix/bin/nft_replay" --target "$target" --video "$work/gst-frames" --poses "$work/out/gst-replay.csv" \
    --no-render --progress 0 >"$work/out/gst-replay.txt" 2>&1 || { cat "$work/out/gst-replay.txt"; return 1; }
  "${gst_env[@]}" gst-launch-1.0 -m filesrc location="$video" ! decodebin ! videoconvert ! nfttrack target="$target" ! \
    fakesink >"$work/out/gst-launch.txt" 2>&1 || { tail -n 20 "$work/out/gst-launch.txt"; return 1; }
  local launch_found replay_found messages
  messages="$(grep -c 'nft-result, frame=' "$work/out/gst-launch.txt" || true)"
  launch_found="$(grep -o 'nft-result, frame=(guint64)[0-9]*, timestamp=([a-z0-9]*)[0-9]*, found=(int)1' "$work/out/gst-launch.txt" |
                  sed 's/.*frame=(guint64)\([0-9]*\),.*/\1/' | tr '\n' ' ')"
  replay_found="$(awk -F, 'NR > 1 && $3 != "" { printf "%s ", $1 }' "$work/out/gst-replay.csv")"
  [ "$messages" -eq "$(($(wc -l <"$work/out/gst-replay.csv") - 1))" ] ||
    { echo "gst-launch-1.0 posted $messages nft-result messages for $(($(wc -l <"$work/out/gst-replay.csv") - 1)) frames"; return 1; }
  [ -n "$launch_found" ] || { echo "nfttrack found the target in no frame of cmu_book"; return 1; }
  [ "$launch_found" = "$replay_found" ] || { echo "nfttrack and nft_replay found the target in different frames"; return 1; }
  echo ">> gst-launch-1.0 with the installed plugin: $messages messages, the target found in the same $(echo "$launch_found" | wc -w) frames as the installed nft_replay"
}

# examples/gstreamer/meta_probe.c, compiled as an app would be — the prefix's include/nft/gst/meta.h
# and `pkg-config gstreamer-1.0`, nothing else —, reads GstNftMeta in a pad probe with the installed
# plugin: every frame's corners equal nft_replay's on the same decoded frames (gst_launch_equals_replay's).
meta_probe_equals_replay() {
  [ -f "$prefix/include/nft/gst/meta.h" ] || { echo "missing: include/nft/gst/meta.h"; return 1; }
  [ -f "$work/out/gst-replay.csv" ] || { echo "no nft_replay poses of the GStreamer frames to compare with"; return 1; }
  local flags
  flags="$("${clean_env[@]}" pkg-config --cflags --libs gstreamer-1.0)" || return 1
  # shellcheck disable=SC2086  # the flags are words
  cc -std=c99 -Wall -Wextra -Wpedantic -Werror -o "$work/meta_probe" "$root/examples/gstreamer/meta_probe.c" \
    -I"$prefix/include" $flags || return 1
  "${gst_env[@]}" "$work/meta_probe" "$data/video/cmu_book/book.mp4" "$data/video/cmu_book/cv_cover.jpg" \
    >"$work/out/meta-probe.txt" || return 1
  grep -q 'without GstNftMeta' "$work/out/meta-probe.txt" && { echo "buffers without GstNftMeta at the sink"; return 1; }
  compare_corners "$work/out/gst-replay.csv" "$work/out/meta-probe.txt" || return 1
}

echo "== the GStreamer plugin from the installed prefix =="
if [ -n "$gst_plugin" ]; then
  if check "gst-inspect-1.0 nfttrack from the prefix's lib/gstreamer-1.0" gst_inspect; then
    check "gst-launch-1.0 nfttrack = nft_replay on cmu_book" gst_launch_equals_replay &&
      check "examples/gstreamer/meta_probe.c (include/nft/gst/meta.h, pad probe) = nft_replay on cmu_book" \
        meta_probe_equals_replay || true
  fi
elif grep -q '^NFT_GST_PLUGIN:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
  failed=$((failed + 1))
  echo "FAIL  the build tree makes the GStreamer plugin but the prefix has none"
else
  skipped=$((skipped + 1))
  echo "SKIP  the GStreamer plugin: not built in $build_dir (GStreamer's development files missing)"
fi

# --- 5. The Python module nft from the prefix ------------------------------------------------------
python="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
python="${python:-/usr/bin/python3}"
py_module="$(find "$prefix" -path '*-packages/nft*.so' | head -n 1)"
py_dir="$(dirname "${py_module:-/}")"
# Debian's python3 with the prefix's module folder only: nothing of the build or source tree.
py_env=("${clean_env[@]}" -u PYTHONHOME PYTHONPATH="$py_dir" PYTHONDONTWRITEBYTECODE=1 MPLCONFIGDIR="$work/mpl"
        NFT_DATA_DIR="$data")

python_import() {
  [ -f "$py_dir/nft.pyi" ] || { echo "missing: the stubs nft.pyi beside $py_module"; return 1; }
  (cd "$work" && "${py_env[@]}" "$python" - "$prefix" <<'EOF'
import sys, pydoc
import nft
prefix = sys.argv[1]
assert nft.__file__.startswith(prefix), f"nft imported from {nft.__file__}, not the prefix {prefix}"
doc = pydoc.render_doc(nft.Session, renderer=pydoc.plaintext)
assert "nft::Session" in doc and "process(" in doc, doc[:500]
print(f">> import nft {nft.__version__} from {nft.__file__}; help(nft.Session): {len(doc.splitlines())} lines")
EOF
  ) || return 1
}

# Every frame of cmu_book through the installed module, printed as minimal prints it.
python_equals_minimal() {
  [ -f "$work/out/minimal-cmu_book.txt" ] || { echo "no minimal output to compare with"; return 1; }
  (cd "$work" && "${py_env[@]}" "$python" - "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4" \
     >"$work/out/python-cmu_book.txt" <<'EOF'
import sys
import cv2
import nft
session = nft.Session({"tracking": {"async_detection": "off"}})  # a file, as minimal: frame by frame
session.add_target(sys.argv[1])
video = cv2.VideoCapture(sys.argv[2])
while True:
    ok, frame = video.read()
    if not ok:
        break
    r = session.process(frame, int(video.get(cv2.CAP_PROP_POS_MSEC) * 1e6))
    t = r.targets[0]
    if not t.found:
        print(f"frame {r.frame}: not found")
        continue
    c = t.corners
    print(f"frame {r.frame}: UL {c[0,0]:.4f} {c[0,1]:.4f} UR {c[1,0]:.4f} {c[1,1]:.4f} "
          f"LR {c[2,0]:.4f} {c[2,1]:.4f} LL {c[3,0]:.4f} {c[3,1]:.4f}")
EOF
  ) || return 1
  compare_corners "$work/out/minimal-cmu_book.txt" "$work/out/python-cmu_book.txt" || return 1
}

python_examples() {
  cp -r "$root/examples/python" "$work/src/python" || return 1
  mkdir -p "$work/run-python"
  (cd "$work/run-python" && "${py_env[@]}" "$python" "$work/src/python/track_video.py" --output trajectory.png) \
    >"$work/out/track_video.txt" || { cat "$work/out/track_video.txt"; return 1; }
  (cd "$work/run-python" && "${py_env[@]}" "$python" "$work/src/python/compare_descriptors.py" --output compare.png) \
    >"$work/out/compare_descriptors.txt" || { cat "$work/out/compare_descriptors.txt"; return 1; }
  local png
  for png in trajectory.png compare.png; do
    [ "$(head -c 8 "$work/run-python/$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
      { echo "$png is missing or not a PNG"; return 1; }
  done
  grep -E '^found in' "$work/out/track_video.txt" | sed 's/^/>> track_video.py: /'
  grep -E 'SURF-ES|SIFT' "$work/out/compare_descriptors.txt" | sed 's/^ */>> compare_descriptors.py: /'
}

echo "== the Python module nft from the installed prefix =="
if [ -n "$py_module" ]; then
  if check "import nft from the prefix's dist-packages (help, stubs)" python_import; then
    check "Python module = minimal on cmu_book" python_equals_minimal || true
    check "examples/python run from the install" python_examples || true
  fi
elif grep -q '^NFT_PYTHON_MODULE:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
  failed=$((failed + 1))
  echo "FAIL  the build tree makes the Python module but the prefix has none"
else
  skipped=$((skipped + 1))
  echo "SKIP  the Python module: not built in $build_dir (pybind11 missing, or a sanitizer build)"
fi

# --- The recognition service's client from the prefix (libnft-recognition.a) -------------------
# examples/recognition built with find_package(nft COMPONENTS recognition) and with pkg-config
# nft-recognition, run on cmu_book against a stand-in service (Python's http.server: it answers
# every POST /recognize with target 1 "cover" and serves, at GET /targets/1, the cover's model as
# the installed nft_train trains it) — the Session starts with no target and must find the cover
# through the service —, and against a port where nothing listens (the failed request reported).
recognition_lib="$(find "$prefix" -name libnft-recognition.a | head -n 1)"
recognition_build() {
  cp -r "$root/examples/recognition" "$work/src/recognition" || return 1
  "${clean_env[@]}" cmake -S "$work/src/recognition" -B "$work/build-recognition" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" || return 1
  cmake --build "$work/build-recognition" || return 1
  local flags pc_static=()
  [ "$kind" = static ] && pc_static=(--static)
  flags="$("${clean_env[@]}" PKG_CONFIG_PATH="$pc_dir" pkg-config "${pc_static[@]}" --cflags --libs nft-recognition opencv4)" ||
    return 1
  echo ">> pkg-config --cflags --libs nft-recognition: $(echo "$flags" | cut -c1-120)..."
  # shellcheck disable=SC2086  # the flags are words
  c++ -std=c++17 -O2 -o "$work/recognition-pc" "$work/src/recognition/recognition.cpp" $flags \
    -Wl,-rpath,"$lib_dir" || return 1
  # Without the component, find_package(nft COMPONENTS recognition) must fail and say what to install.
  mkdir -p "$work/prefix-no-recognition" && cp -r "$prefix/." "$work/prefix-no-recognition/" || return 1
  find "$work/prefix-no-recognition" -name 'nftRecognitionTargets*.cmake' -delete
  if "${clean_env[@]}" cmake -S "$work/src/recognition" -B "$work/build-recognition-none" "${generator[@]}" \
       -DCMAKE_PREFIX_PATH="$work/prefix-no-recognition" >"$work/out/recognition-none.txt" 2>&1; then
    echo "find_package(nft COMPONENTS recognition) succeeded without the component"; return 1
  fi
  grep -q 'libnft-recognition-dev' "$work/out/recognition-none.txt" ||
    { echo "the failure does not name libnft-recognition-dev:"; cat "$work/out/recognition-none.txt"; return 1; }
}
recognition_standin() {
  local exe="$1" name="$2"
  "$prefix/bin/nft_train" "$data/video/cmu_book/cv_cover.jpg" -o "$work/out/cover.nftm" >/dev/null || return 1
  rm -f "$work/out/standin-port"
  "${clean_env[@]}" python3 - "$work/out/cover.nftm" "$work/out/standin-port" <<'PY' &
import http.server, json, sys
model = open(sys.argv[1], "rb").read()
class Service(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def answer(self, status, body, kind):
        self.send_response(status); self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/recognize": return self.answer(404, b'{"error": "no such path"}', "application/json")
        self.answer(200, json.dumps({"found": True, "target": {"id": 1, "name": "cover", "width_m": 0.2},
            "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "quad": [[0, 0], [1, 0], [1, 1], [0, 1]],
            "inliers": 50, "score": 0.9}).encode(), "application/json")
    def do_GET(self):
        if self.path != "/targets/1": return self.answer(404, b'{"error": "no such target"}', "application/json")
        self.answer(200, model, "application/octet-stream")
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Service)
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
  local pid=$! i
  for i in $(seq 100); do [ -s "$work/out/standin-port" ] && break; sleep 0.1; done
  local port; port="$(cat "$work/out/standin-port" 2>/dev/null)"
  local status=0
  if [ -n "$port" ]; then
    "${clean_env[@]}" "$exe" "http://127.0.0.1:$port" "$data/video/cmu_book/book.mp4" 120 \
      >"$work/out/recognition-$name.txt" 2>&1 || status=1
  else
    echo "the stand-in service did not start"; status=1
  fi
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ "$status" = 0 ] || { cat "$work/out/recognition-$name.txt"; return 1; }
  cat "$work/out/recognition-$name.txt"
  grep -q -E '^frame [0-9]+: found cover \(catalogue id 1\)$' "$work/out/recognition-$name.txt" ||
    { echo "the cover was not found through the service"; return 1; }
  # Found early and tracked on the device in every frame from then on. The first request goes
  # with frame 0 but its answer and the model's download arrive off the camera thread while the
  # file is read at full speed, so the frame it lands on depends on the machine's load (frames 19
  # and 21 on CI's 2 cores, where a fixed "100 of 120" failed once): "early" is within the first
  # 60 frames; "from then on" is exact.
  local summary; summary="$(grep -E '^frames ' "$work/out/recognition-$name.txt")"
  echo ">> $summary"
  [[ "$summary" =~ ^frames\ 120,\ found\ in\ ([0-9]+),\ requests\ 1,\ errors\ 0$ ]] ||
    { echo "expected 120 frames, 1 request, 0 errors: $summary"; return 1; }
  local found_in="${BASH_REMATCH[1]}" first
  first="$(sed -n -E 's/^frame ([0-9]+): found cover .*/\1/p' "$work/out/recognition-$name.txt" | head -n 1)"
  [ "$first" -le 60 ] || { echo "found only at frame $first (expected within the first 60)"; return 1; }
  ! grep -q -E '^frame [0-9]+: lost$' "$work/out/recognition-$name.txt" ||
    { echo "lost after it was found"; return 1; }
  [ "$found_in" -eq $((120 - first)) ] ||
    { echo "found in $found_in of 120 frames, expected every frame from frame $first on ($((120 - first)))"; return 1; }
}
recognition_unreachable() {
  local out status=0
  out="$("${clean_env[@]}" "$work/build-recognition/recognition" http://127.0.0.1:9 \
         "$data/video/cmu_book/book.mp4" 30 2>&1)" || status=$?
  echo "$out"
  [ "$status" = 0 ] || { echo "exit $status: a failed request must not stop the app"; return 1; }
  grep -q -E '^frames 30, found in 0, requests 1, errors 1$' <<<"$out" || return 1
  grep -q -F 'POST /recognize' <<<"$out" && grep -q -F 'http://127.0.0.1:9/recognize' <<<"$out" ||
    { echo "the error does not name the request and its URL"; return 1; }
  out="$("${clean_env[@]}" "$work/build-recognition/recognition" ftp://x "$data/video/cmu_book/book.mp4" 1 2>&1)" &&
    { echo "ftp://x: exit 0"; return 1; }
  grep -q 'recognition.url' <<<"$out" || { echo "ftp://x: the error does not name recognition.url: $out"; return 1; }
}
echo "== the recognition service's client from the installed prefix =="
if [ -n "$recognition_lib" ]; then
  if check "examples/recognition builds (CMake component recognition, pkg-config nft-recognition)" recognition_build; then
    check "examples/recognition (CMake) finds the cover through a stand-in service" \
      recognition_standin "$work/build-recognition/recognition" cmake || true
    check "examples/recognition (pkg-config) finds the cover through a stand-in service" \
      recognition_standin "$work/recognition-pc" pkg-config || true
    check "examples/recognition reports an unreachable service and a bad URL" recognition_unreachable || true
  fi
elif grep -q '^NFT_BUILD_RECOGNITION_CLIENT:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  failed=$((failed + 1))
  echo "FAIL  the build tree makes the recognition client but the prefix has no libnft-recognition.a"
else
  skipped=$((skipped + 1))
  echo "SKIP  the recognition client: not built in $build_dir (NFT_BUILD_RECOGNITION_CLIENT=OFF)"
fi

echo "== examples/camera against the installed package =="
if [ -f "$root/examples/camera/CMakeLists.txt" ]; then
  check "examples/camera builds and runs under xvfb-run" camera_example || true
else
  skipped=$((skipped + 1))
  echo "SKIP  examples/camera: the folder does not exist yet"
fi

finish
