// Vertex shader of every full-screen-quad pass (MinGPU-ES, seeds/000 section 3.4): a unit
// quad stretched over the viewport with a 1:1 fragment-to-texel mapping.
// a_position runs over (0,0)..(1,1); the viewport is u_rect = (x, y, width, height) of the
// target in texels, so v_texel is the target texel coordinate, (x + 0.5, y + 0.5) at the
// centre of texel (x, y). Computing it here rather than from gl_FragCoord avoids the y-flip
// some drivers have (seeds/000 section 4.2, footnote 17) and per-fragment arithmetic
// (seeds/001, seeds/004: coordinates in the vertex shader).
attribute vec2 a_position;
uniform vec4 u_rect;
varying vec2 v_texel;

void main() {
  v_texel = u_rect.xy + a_position * u_rect.zw;
  gl_Position = vec4(a_position * 2.0 - 1.0, 0.0, 1.0);
}
