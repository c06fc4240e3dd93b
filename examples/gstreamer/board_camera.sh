#!/bin/sh
# board_camera.sh: live tracking on a dev board's camera (Raspberry Pi, Jetson, i.MX: V4L2) with
# GStreamer's tools only: the camera's frames uploaded to GStreamer's GL context (EGL / GLES2),
# tracked by nftgloverlay, which draws the augmentations there with the tracker's renderer, and
# shown by glimagesink on the board's display. (Without GL: ... ! videoconvert ! nfttrack draw=true
# ! videoconvert ! autovideosink.)
#
#   board_camera.sh TARGET [DEVICE]      TARGET: an image or a .nftm model; DEVICE: /dev/video0
#
# Environment (words split on spaces): NFT_SOURCE replaces the camera part, e.g.
# "libcamerasrc ! video/x-raw,width=1280,height=720" or "filesrc location=clip.mp4 ! decodebin";
# NFT_SINK replaces the display, e.g. "fakesink" (headless); NFT_TRACK adds nfttrack properties,
# e.g. "width-m=0.185 hfov=62"; GST_PLUGIN_PATH names the plugin's folder when it is not installed.
# Headless (no display, Mesa's llvmpipe): GST_GL_API=gles2 GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device.
# The poses are on the bus: nft_bus_poses.py --pipeline "..." writes them as CSV.
set -eu
target="${1:?usage: board_camera.sh TARGET [DEVICE]}"
device="${2:-/dev/video0}"
source="${NFT_SOURCE:-v4l2src device=$device ! video/x-raw,width=640,height=480}"
sink="${NFT_SINK:-glimagesink sync=false}"
# shellcheck disable=SC2086  # the pipeline's parts are words for gst-launch-1.0
exec gst-launch-1.0 -e $source ! videoconvert ! glupload ! glcolorconvert ! nftgloverlay target="$target" ${NFT_TRACK:-} ! $sink
