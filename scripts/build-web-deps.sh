#!/usr/bin/env bash
# The web build's dependencies (issue 25): zlib, OpenCV (core, imgproc, imgcodecs, features2d,
# flann, calib3d) and yaml-cpp, built from Debian's own source packages with Debian's emscripten
# into a static WebAssembly prefix that scripts/build-web.sh points CMake at.
#
# Cached outside the clone: by default the prefix is ~/.cache/nft/web-deps-KEY (~/.cache is
# $XDG_CACHE_HOME when set; $NFT_CACHE_DIR replaces ~/.cache/nft), KEY a hash of what builds it: emscripten's version,
# each source package's version, this script's own hash. A fresh clone, or another branch with
# the same key, finds it built (CI's second run), and a change of any of them makes a new prefix
# under a new key; prefixes of other keys unused for 30 days are removed. The prefix holds the
# stamp of what built it (stamp.txt); a run whose stamp matches does nothing. The stamp is
# written last, so an interrupted build is never taken for a complete one.
#
# Sources come from apt's deb-src for the suites the machine already uses, through a sources list
# and package lists of this script's own (under the cache folder): the system's apt configuration
# is never changed. OpenCV's flags follow its platforms/js/build_js.py (no SIMD, no threads, no
# codecs of 3rdparty/, which Debian's source drops); emscripten's system libraries come prebuilt
# with Debian's package (its frozen cache).
#
#   scripts/build-web-deps.sh [--prefix DIR] [--jobs N] [--print-prefix]
#     --prefix DIR    where the prefix goes (default: $NFT_WEB_DEPS, else the cache's KEY folder)
#     --jobs N        parallel compile jobs (default: nproc)
#     --print-prefix  print the prefix's path and exit (scripts/build-web.sh asks it)
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${NFT_WEB_DEPS:-}"
print_prefix=0
jobs="$(nproc)"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d;s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --print-prefix) print_prefix=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-web-deps: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$jobs" in ''|*[!0-9]*|0) echo "build-web-deps: --jobs expects a positive integer, got '$jobs'" >&2; exit 2 ;; esac

for tool in emcc emcmake emconfigure emar apt-get dpkg-source; do
  command -v "$tool" >/dev/null || { echo "build-web-deps: '$tool' not found: run scripts/install-deps.sh (packages emscripten, dpkg-dev)" >&2; exit 1; }
done

# Debian's emscripten runs its JavaScript tools with the machine's node, which needs Debian's
# node modules (acorn) on its path.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

# The source packages, at the versions of the native -dev packages the project builds against
# (the web build then runs the same library code).
installed_version() { dpkg-query -W -f='${source:Version}' "$1" 2>/dev/null; }
declare -A SOURCES=(
  [zlib]="$(installed_version zlib1g-dev)"
  [opencv]="$(installed_version libopencv-dev)"
  [yaml-cpp]="$(installed_version libyaml-cpp-dev)"
)
for pkg in "${!SOURCES[@]}"; do
  [ -n "${SOURCES[$pkg]}" ] || { echo "build-web-deps: the native package of source '$pkg' is not installed: run scripts/install-deps.sh" >&2; exit 1; }
done

# emcc's first line, without a pipe: `emcc --version | head -n1` under pipefail failed when head
# closed the pipe before emcc had written its last line (emcc's BrokenPipeError).
emcc_version="$(emcc --version 2>/dev/null)" || { echo "build-web-deps: 'emcc --version' failed" >&2; exit 1; }
emcc_version="${emcc_version%%$'\n'*}"
stamp="emcc: $emcc_version
emscripten: $(installed_version emscripten)
zlib: ${SOURCES[zlib]}
opencv: ${SOURCES[opencv]}
yaml-cpp: ${SOURCES[yaml-cpp]}
script: $(sha256sum "$0" | cut -d' ' -f1)"

cache="${NFT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nft}"
if [ -z "$prefix" ]; then
  key="$(printf '%s\n' "$stamp" | sha256sum | cut -c1-16)"
  prefix="$cache/web-deps-$key"
fi
mkdir -p "$(dirname "$prefix")"
prefix="$(cd "$(dirname "$prefix")" && pwd)/$(basename "$prefix")"
if [ "$print_prefix" = 1 ]; then
  echo "$prefix"
  exit 0
fi
# Prefixes of other keys that no build has used for 30 days (their stamp is touched on use).
if [ -d "$cache" ]; then
  find "$cache" -mindepth 2 -maxdepth 2 -path "$cache/web-deps-*/stamp.txt" -mtime +30 -printf '%h\n' |
    while read -r old; do [ "$old" = "$prefix" ] || { echo "build-web-deps: removing $old (unused for 30 days)"; rm -rf "$old"; }; done
fi
if [ -f "$prefix/stamp.txt" ] && [ "$(cat "$prefix/stamp.txt")" = "$stamp" ]; then
  touch "$prefix/stamp.txt"
  echo "build-web-deps: $prefix is up to date (nothing to build)"
  exit 0
fi

echo "build-web-deps: building into $prefix"
work="$prefix.work"
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/src"
rm -rf "$prefix"
mkdir -p "$prefix"

# --- Sources: deb-src lines for the suites of the machine's own Debian sources ---------------
suites=()
while read -r uri suite; do suites+=("deb-src $uri $suite main"); done < <(
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
  grep -E '^https?://[^ ]*debian[^ ]* ' | sort -u | sort -s -k1,1 -t/ --key=3,3 |
  awk '/security/ { late[++n] = $0; next } { print } END { for (i = 1; i <= n; i++) print late[i] }')
# (The main suites first: apt takes a version's files from the first list that names it, and the
# security archive lists some versions it does not carry.)
if [ ${#suites[@]} -eq 0 ]; then
  echo "build-web-deps: found no Debian suite in apt's configuration to take deb-src lines from" >&2
  exit 1
fi
printf '%s\n' "${suites[@]}" > "$work/apt/sources.list"
APT=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/apt/lists" -o APT::Sandbox::User=root -q)
echo "== apt-get update (deb-src: ${#suites[@]} suites)"
apt-get "${APT[@]}" update >/dev/null
for pkg in zlib opencv yaml-cpp; do
  echo "== source $pkg ${SOURCES[$pkg]}"
  (cd "$work/src" && apt-get "${APT[@]}" source --download-only "$pkg=${SOURCES[$pkg]}" >/dev/null &&
   dpkg-source -x "${pkg}_${SOURCES[$pkg]#*:}.dsc" "$pkg" >dpkg-source.log 2>&1) ||
   { cat "$work/src/dpkg-source.log" >&2; echo "build-web-deps: could not fetch or unpack the source of $pkg" >&2; exit 1; }
  # (apt checked the files against the signed archive index; dpkg-source's warning that it
  # has no key for the uploader's signature is expected and not shown.)
done
P="$prefix"

# --- zlib: its configure script (Debian's source lacks a file its CMake build needs) ----------
echo "== build zlib"
(cd "$work/src/zlib" && emconfigure ./configure --static --prefix="$P" >/dev/null &&
 emmake make -j"$jobs" libz.a >/dev/null && emmake make install >/dev/null)

# --- OpenCV: the modules the project's libraries use, as static wasm libraries ----------------
echo "== build OpenCV (about 5 minutes on 2 cores)"
emcmake cmake -S "$work/src/opencv" -B "$work/build-opencv" -G Ninja -Wno-dev \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$P" \
  -DBUILD_LIST=core,imgproc,imgcodecs,features2d,flann,calib3d \
  -DBUILD_SHARED_LIBS=OFF -DENABLE_PIC=FALSE -DCPU_BASELINE= -DCPU_DISPATCH= -DCV_TRACE=OFF \
  -DCV_ENABLE_INTRINSICS=OFF -DWITH_PTHREADS_PF=OFF -DBUILD_ZLIB=OFF \
  -DZLIB_LIBRARY="$P/lib/libz.a" -DZLIB_INCLUDE_DIR="$P/include" \
  -DWITH_1394=OFF -DWITH_ADE=OFF -DWITH_VTK=OFF -DWITH_EIGEN=OFF -DWITH_FFMPEG=OFF \
  -DWITH_GSTREAMER=OFF -DWITH_GTK=OFF -DWITH_IPP=OFF -DWITH_JASPER=OFF -DWITH_OPENJPEG=OFF \
  -DWITH_JPEG=OFF -DWITH_WEBP=OFF -DWITH_OPENEXR=OFF -DWITH_OPENGL=OFF -DWITH_OPENVX=OFF \
  -DWITH_OPENNI=OFF -DWITH_OPENNI2=OFF -DWITH_PNG=OFF -DWITH_TBB=OFF -DWITH_TIFF=OFF \
  -DWITH_V4L=OFF -DWITH_OPENCL=OFF -DWITH_GPHOTO2=OFF -DWITH_LAPACK=OFF -DWITH_ITT=OFF \
  -DWITH_QUIRC=OFF -DWITH_PROTOBUF=OFF -DWITH_IMGCODEC_HDR=OFF -DWITH_IMGCODEC_SUNRASTER=OFF \
  -DWITH_IMGCODEC_PXM=ON -DWITH_IMGCODEC_PFM=OFF -DBUILD_opencv_apps=OFF -DBUILD_EXAMPLES=OFF \
  -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_DOCS=OFF -DBUILD_PACKAGE=OFF \
  -DBUILD_opencv_python3=OFF -DBUILD_opencv_java=OFF -DBUILD_opencv_js=OFF \
  -DOPENCV_GENERATE_PKGCONFIG=OFF -DCMAKE_C_FLAGS=-fexceptions -DCMAKE_CXX_FLAGS=-fexceptions \
  > "$work/opencv-configure.log" 2>&1 ||
  { tail -n 30 "$work/opencv-configure.log" >&2; echo "build-web-deps: OpenCV's configure failed (log: $work/opencv-configure.log)" >&2; exit 1; }
cmake --build "$work/build-opencv" -j "$jobs" > "$work/opencv-build.log" 2>&1 ||
  { tail -n 30 "$work/opencv-build.log" >&2; echo "build-web-deps: OpenCV's build failed (log: $work/opencv-build.log)" >&2; exit 1; }
cmake --install "$work/build-opencv" >/dev/null

# --- yaml-cpp ---------------------------------------------------------------------------------
echo "== build yaml-cpp"
emcmake cmake -S "$work/src/yaml-cpp" -B "$work/build-yaml-cpp" -G Ninja -Wno-dev \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$P" -DYAML_BUILD_SHARED_LIBS=OFF \
  -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=OFF \
  -DCMAKE_CXX_FLAGS=-fexceptions >/dev/null
cmake --build "$work/build-yaml-cpp" -j "$jobs" >/dev/null
cmake --install "$work/build-yaml-cpp" >/dev/null

rm -rf "$work"
printf '%s\n' "$stamp" > "$prefix/stamp.txt"
echo "build-web-deps: done ($(du -sh "$prefix" | cut -f1) in $prefix)"
