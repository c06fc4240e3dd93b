// Vertex shader of a RectBatch: many rectangles of a target texture in one draw call, each
// with 12 floats of its own data (seeds/001: per-item values computed once per vertex rather
// than once per fragment; seeds/004: coordinates in the vertex shader).
// a_position: the corner in target texel coordinates; a_local: the same corner in the
// rectangle's own texel coordinates, so floor(v_local) is the local index (i, j) of the
// fragment's texel; a_data0..2: the rectangle's data, identical at its four corners.
attribute vec2 a_position;
attribute vec2 a_local;
attribute vec4 a_data0;
attribute vec4 a_data1;
attribute vec4 a_data2;
uniform vec2 u_target_size;
varying vec2 v_local;
varying vec4 v_data0;
varying vec4 v_data1;
varying vec4 v_data2;

void main() {
  v_local = a_local;
  v_data0 = a_data0;
  v_data1 = a_data1;
  v_data2 = a_data2;
  gl_Position = vec4(a_position / u_target_size * 2.0 - 1.0, 0.0, 1.0);
}
