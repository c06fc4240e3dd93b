// SurfEs export pass (float path, readback only): unpacks the float descriptors (four bins per
// texel) into the RGBA8 layout of the other path (one codec-encoded bin per texel, BINS rows
// per keypoint), because GLES2 only guarantees RGBA8 readback. A QuadPass over that layout.
uniform sampler2D u_descriptors;
uniform vec2 u_descriptors_size;

void main() {
  vec2 index = nft_texel_index();
  float block = floor(index.y / BINS);
  float bin = index.y - BINS * block;
  float texelIndex = floor(bin / 4.0);
  vec4 select = vec4(equal(vec4(bin - 4.0 * texelIndex), vec4(0.0, 1.0, 2.0, 3.0)));
  vec2 source = vec2(index.x, block * float(TEXELS) + texelIndex);
  gl_FragColor = nft_encode_float(dot(texture2D(u_descriptors, (source + 0.5) / u_descriptors_size), select), u_codec);
}
