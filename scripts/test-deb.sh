#!/usr/bin/env bash
# The Debian packages as a user of them gets them (issue 35): builds libnft0, libnft-dev, nft-tools,
# python3-nft and gstreamer1.0-nft (the deb preset and CPack's DEB generator, cmake/NftDebian.cmake), installs them
# with `apt-get install ./*.deb`, uses them, then purges them and whatever apt installed with them,
# leaving the machine's package list as it was (checked). scripts/test.sh runs it.
#
#   scripts/test-deb.sh [--build-dir DIR]
#     --build-dir DIR  the deb preset's build folder (default build/deb; configured when missing)
#
# With the packages installed:
#   - `dpkg -L nft-tools` lists every program in /usr/bin and its manual page in /usr/share/man/man1;
#   - examples/minimal, copied outside the source tree, builds against /usr alone (find_package(nft)
#     finds /usr/lib/<multiarch>/cmake/nft) and finds the target in the same frames of cmu_book as
#     /usr/bin/nft_replay does;
#   - /usr/bin/nft_replay tracks 30 frames of its synthetic input, 100 % within 5 px;
#   - `python3 -c "import nft"` (Debian's /usr/bin/python3) imports the module from
#     /usr/lib/python3/dist-packages;
#   - libnft.so.0.1 is in ldconfig's cache and `pkg-config --modversion nft` answers;
#   - gst-inspect-1.0 nfttrack, with no GST_PLUGIN_PATH, finds the plugin in
#     /usr/lib/<multiarch>/gstreamer-1.0, and gst-launch-1.0 with it finds the target on cmu_book
#     (where the build made the plugin: gstreamer1.0-nft, which also holds
#     /usr/include/nft/gst/meta.h);
#   - libnft-recognition-dev: examples/recognition builds against /usr alone (find_package(nft
#     COMPONENTS recognition)) and reports a service that does not answer; libnft0 does not depend
#     on libcurl (an app that does not use the service gains no dependency);
#   - every package has its own description.
# Needs root or sudo (apt-get), dpkg-dev (dpkg-shlibdeps) and the real data ($NFT_DATA_DIR or
# ../shared/data). Refuses to start when one of the packages is installed already.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

build_dir=build/deb
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a folder}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test-deb: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
data="$(realpath -m "${NFT_DATA_DIR:-../shared/data}")"
packages=(libnft0 libnft-dev nft-tools python3-nft gstreamer1.0-nft libnft-recognition-dev)
programs=(nft_replay nft_train nft_eval nft_preview nft_gpuinfo nft_describe nft_bench)

fail() { echo "test-deb: $*" >&2; exit 1; }
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || fail "apt-get needs root: run as root or install sudo"
  SUDO=(sudo)
fi
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "installed"; then
    fail "$p is installed already; purge it first (apt-get purge ${packages[*]})"
  fi
done
for f in "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4"; do
  [ -f "$f" ] || fail "missing data: $f (set NFT_DATA_DIR)"
done

# --- 1. The packages ---------------------------------------------------------------------------
if [ "$build_dir" = build/deb ]; then
  cmake --preset deb >/dev/null
else
  [ -f "$build_dir/CMakeCache.txt" ] || fail "$build_dir is not a configured build folder"
fi
cmake --build "$build_dir"
# The GStreamer plugin's package, where the build made the plugin (GStreamer's development files found).
if ! grep -q '^NFT_GST_PLUGIN:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
  echo "test-deb: no GStreamer plugin in $build_dir: gstreamer1.0-nft is not made or checked"
  packages=(libnft0 libnft-dev nft-tools python3-nft libnft-recognition-dev)
fi
rm -rf "$build_dir/deb"
(cd "$build_dir" && cpack -G DEB) | grep -E '^CPack: - package' || fail "cpack made no package"
debs=()
for p in "${packages[@]}"; do
  deb="$(find "$build_dir/deb" -maxdepth 1 -name "${p}_*.deb" | head -n 1)"
  [ -n "$deb" ] || fail "cpack made no ${p}_*.deb"
  debs+=("$(realpath "$deb")")
  echo "  $(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
  # Each package describes itself (not CPack's placeholder "<name> built using CMake").
  summary="$(dpkg-deb -f "$deb" Description)"; summary="${summary%%$'\n'*}"
  [[ "$summary" == *natural-feature-tracking* ]] ||
    fail "$(basename "$deb") has no description of its own: '$summary'"
done

# --- 2. Installed, used, purged ----------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/nft-deb.XXXXXX")"
installed_list() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture} ${Version}\n' | grep '^ii ' | sort; }
installed_list >"$work/before.txt"
apt-mark showauto | sort >"$work/auto-before.txt"

purge() {
  # Our packages, then what apt installed with them (in the list now, not before).
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" >"$work/purge.log" 2>&1 || true
  local added
  added="$(installed_list | comm -13 "$work/before.txt" - | awk '{ print $2 }')"
  if [ -n "$added" ]; then
    # shellcheck disable=SC2086  # package names are words
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $added >>"$work/purge.log" 2>&1 || true
  fi
}
cleanup() {
  local status=$?
  if [ -n "${installed:-}" ]; then purge; fi
  if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "test-deb: logs kept in $work" >&2; fi
}
trap cleanup EXIT

echo "== apt-get install ./*.deb"
installed=1
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}" \
  >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "apt-get install of the packages failed"; }
echo "  installed: ${packages[*]}; with them: $(installed_list | comm -13 "$work/before.txt" - | awk '{ print $2 }' |
  grep -v -E "^($(IFS='|'; echo "${packages[*]}")):" | tr '\n' ' ')"

echo "== dpkg -L nft-tools"
dpkg -L nft-tools >"$work/nft-tools.txt"
for p in "${programs[@]}"; do
  grep -qx "/usr/bin/$p" "$work/nft-tools.txt" || fail "dpkg -L nft-tools lists no /usr/bin/$p"
  grep -qx "/usr/share/man/man1/$p.1.gz" "$work/nft-tools.txt" || fail "dpkg -L nft-tools lists no /usr/share/man/man1/$p.1.gz"
done
echo "  ${#programs[@]} programs in /usr/bin, each with its manual page: ${programs[*]}"

echo "== examples/minimal against /usr"
cp -r "$root/examples/minimal" "$work/minimal"
clean_env=(env -u CMAKE_PREFIX_PATH -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH -u nft_DIR -u PYTHONPATH)
"${clean_env[@]}" cmake -S "$work/minimal" -B "$work/build-minimal" -DCMAKE_BUILD_TYPE=Release >"$work/minimal.log" 2>&1 &&
  cmake --build "$work/build-minimal" >>"$work/minimal.log" 2>&1 || { cat "$work/minimal.log" >&2; fail "examples/minimal did not build against /usr"; }
nft_dir="$(sed -n 's/^nft_DIR:PATH=//p' "$work/build-minimal/CMakeCache.txt")"
case "$nft_dir" in
  /usr/lib/*/cmake/nft) echo "  find_package(nft): $nft_dir" ;;
  *) fail "find_package(nft) found '$nft_dir', not the package's /usr/lib/<multiarch>/cmake/nft" ;;
esac
# Lists into files before grep -q, here and below: under pipefail, `ldd … | grep -q` fails when grep
# exits at its match before ldd has written the rest (SIGPIPE), as it did in one CI run.
"${clean_env[@]}" ldd "$work/build-minimal/minimal" >"$work/minimal-ldd.txt"
grep -q -E 'libnft.so.0.1 => (/usr)?/lib/' "$work/minimal-ldd.txt" ||
  fail "minimal does not load the package's libnft.so.0.1: $(grep libnft "$work/minimal-ldd.txt" || echo 'no libnft in ldd')"
"$work/build-minimal/minimal" "$data/video/cmu_book/cv_cover.jpg" "$data/video/cmu_book/book.mp4" >"$work/minimal.txt"
(cd "$work" && /usr/bin/nft_replay --target "$data/video/cmu_book/cv_cover.jpg" --video "$data/video/cmu_book/book.mp4" \
   --poses "$work/replay.csv" --no-render --progress 0 >"$work/replay.log" 2>&1) || { cat "$work/replay.log" >&2; fail "/usr/bin/nft_replay failed"; }
minimal_found="$(grep -E '^frame [0-9]+: UL' "$work/minimal.txt" | sed 's/^frame \([0-9]*\):.*/\1/' | tr '\n' ' ')"
replay_found="$(awk -F, 'NR > 1 && $3 != "" { printf "%s ", $1 }' "$work/replay.csv")"
[ -n "$minimal_found" ] || fail "minimal found the target in no frame of cmu_book"
[ "$minimal_found" = "$replay_found" ] || fail "minimal and /usr/bin/nft_replay found the target in different frames of cmu_book"
echo "  minimal and /usr/bin/nft_replay: the target found in the same $(echo "$minimal_found" | wc -w) frames of cmu_book"

echo "== /usr/bin/nft_replay on its synthetic input"
(cd "$work" && /usr/bin/nft_replay --synthetic-frames 30 --no-render --progress 0 >"$work/synthetic.log" 2>&1) ||
  { cat "$work/synthetic.log" >&2; fail "/usr/bin/nft_replay failed on its synthetic input"; }
grep -q "success 100.0% at 5 px" "$work/synthetic.log" || { cat "$work/synthetic.log" >&2; fail "/usr/bin/nft_replay lost the synthetic target"; }
echo "  $(grep -o 'accuracy over .*' "$work/synthetic.log")"

# Debian's python3, the one python3-nft depends on (a python3 of pyenv or a virtual environment
# first on PATH does not read Debian's dist-packages).
echo "== /usr/bin/python3 -c \"import nft\""
(cd "$work" && "${clean_env[@]}" /usr/bin/python3 -c "import nft; print(nft.__version__, nft.__file__)") >"$work/python.txt" 2>&1 ||
  { cat "$work/python.txt" >&2; fail "/usr/bin/python3 could not import nft"; }
grep -q " /usr/lib/python3/dist-packages/nft" "$work/python.txt" || fail "nft imported from elsewhere: $(cat "$work/python.txt")"
echo "  nft $(cat "$work/python.txt")"

echo "== the library for the system: ldconfig, pkg-config"
# Into a file first: under pipefail, `ldconfig -p | grep -q` fails when grep exits at its match
# before ldconfig has written the rest of its ~90 KB (SIGPIPE), as it did in one CI run.
/sbin/ldconfig -p >"$work/ldconfig.txt"
grep -q 'libnft.so.0.1 ' "$work/ldconfig.txt" || fail "libnft.so.0.1 is not in ldconfig's cache"
echo "  pkg-config --modversion nft: $("${clean_env[@]}" pkg-config --modversion nft)"

if [[ " ${packages[*]} " == *" gstreamer1.0-nft "* ]]; then
  echo "== gst-inspect-1.0 nfttrack, gst-launch-1.0 with the package's plugin"
  gst_env=("${clean_env[@]}" -u GST_PLUGIN_PATH GST_REGISTRY="$work/gst-registry.bin")
  plugin="$(dpkg -L gstreamer1.0-nft | grep -E '^/usr/lib/[^/]+/gstreamer-1.0/libgstnft.so$')" ||
    fail "dpkg -L gstreamer1.0-nft lists no /usr/lib/<multiarch>/gstreamer-1.0/libgstnft.so"
  dpkg -L gstreamer1.0-nft >"$work/gst-files.txt"
  grep -qx /usr/include/nft/gst/meta.h "$work/gst-files.txt" ||
    fail "dpkg -L gstreamer1.0-nft lists no /usr/include/nft/gst/meta.h (GstNftMeta's header)"
  "${gst_env[@]}" gst-inspect-1.0 nfttrack >"$work/gst-inspect.txt" 2>&1 || { cat "$work/gst-inspect.txt" >&2; fail "gst-inspect-1.0 does not find nfttrack"; }
  # /lib is /usr/lib on Debian 12 (merged /usr): GStreamer may name either.
  found_plugin="$(sed -n 's/^ *Filename *//p' "$work/gst-inspect.txt")"
  [ "$(realpath "$found_plugin")" = "$(realpath "$plugin")" ] ||
    fail "gst-inspect-1.0 found nfttrack in '$found_plugin', not the package's $plugin"
  "${gst_env[@]}" gst-launch-1.0 -m filesrc location="$data/video/cmu_book/book.mp4" ! decodebin ! videoconvert ! \
    nfttrack target="$data/video/cmu_book/cv_cover.jpg" ! fakesink >"$work/gst-launch.txt" 2>&1 ||
    { tail -n 20 "$work/gst-launch.txt" >&2; fail "gst-launch-1.0 with the package's nfttrack failed"; }
  gst_found="$(grep -c 'found=(int)1' "$work/gst-launch.txt" || true)"
  [ "$gst_found" -gt 0 ] || fail "the package's nfttrack found the target in no frame of cmu_book"
  echo "  $plugin: gst-inspect-1.0 finds it; on cmu_book the target found in $gst_found of $(grep -c 'nft-result, frame=' "$work/gst-launch.txt") frames"
fi

echo "== examples/recognition against /usr (libnft-recognition-dev)"
grep -q -i curl <<<"$(dpkg-deb -f "${debs[0]}" Depends)" && fail "libnft0 depends on libcurl: $(dpkg-deb -f "${debs[0]}" Depends)"
dpkg -L libnft-recognition-dev >"$work/recognition-files.txt"
grep -qx /usr/include/nft/recognition.h "$work/recognition-files.txt" || fail "dpkg -L libnft-recognition-dev lists no /usr/include/nft/recognition.h"
grep -q -E '^/usr/lib/[^/]+/libnft-recognition\.a$' "$work/recognition-files.txt" ||
  fail "dpkg -L libnft-recognition-dev lists no /usr/lib/<multiarch>/libnft-recognition.a"
cp -r "$root/examples/recognition" "$work/recognition"
"${clean_env[@]}" cmake -S "$work/recognition" -B "$work/build-recognition" -DCMAKE_BUILD_TYPE=Release >"$work/recognition.log" 2>&1 &&
  cmake --build "$work/build-recognition" >>"$work/recognition.log" 2>&1 ||
  { cat "$work/recognition.log" >&2; fail "examples/recognition did not build against /usr"; }
recognition_out="$("${clean_env[@]}" "$work/build-recognition/recognition" http://127.0.0.1:9 "$data/video/cmu_book/book.mp4" 30 2>&1)" ||
  { echo "$recognition_out" >&2; fail "examples/recognition exited with an error"; }
grep -q -E '^frames 30, found in 0, requests 1, errors 1$' <<<"$recognition_out" &&
  grep -q -F 'http://127.0.0.1:9/recognize' <<<"$recognition_out" ||
  { echo "$recognition_out" >&2; fail "examples/recognition did not report the unreachable service"; }
echo "  built against /usr (libnft-recognition.a); libnft0's Depends have no libcurl; an unreachable service reported"

echo "== apt-get purge"
purge
installed=""
installed_list >"$work/after.txt"
apt-mark showauto | sort >"$work/auto-after.txt"
if ! diff -u "$work/before.txt" "$work/after.txt" >"$work/diff.txt" || ! diff -u "$work/auto-before.txt" "$work/auto-after.txt" >>"$work/diff.txt"; then
  cat "$work/diff.txt" >&2
  fail "the installed packages differ from before the test"
fi
echo "  purged; the installed packages and their automatic marks are as before ($(wc -l <"$work/before.txt") packages)"
echo "test-deb: passed"
