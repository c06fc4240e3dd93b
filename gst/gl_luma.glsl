// OpenCV's RGBA→GRAY on 8 bits, bit for bit (cv::cvtColor COLOR_RGBA2GRAY:
// (9798·R + 19235·G + 3735·B + 2^14) >> 15), of a colour sampled from an RGBA8 texture: each
// channel rounded back to its byte first, so that the sum is OpenCV's integer one (exact in fp32,
// below 2^24; a mediump-only GPU may differ by a level). Shared by nftgloverlay's luma pass
// (gst/gl_luma_pass.h) and its colour background (gst/gl_colour_background.h), which must agree.
float nft_rgba2gray(vec3 rgb) {
  vec3 bytes = floor(rgb * 255.0 + 0.5);
  return floor((dot(bytes, vec3(9798.0, 19235.0, 3735.0)) + 16384.0) / 32768.0) / 255.0;
}
