// The textured quad on the target: corners in target coordinates (metres) with their texture
// coordinates (row 0 of the image at v = 0, on the target's top edge y = 0). Perspective-
// correct interpolation of v_uv is GL's.
attribute vec3 a_position;
attribute vec2 a_uv;
uniform mat4 u_mvp;
varying vec2 v_uv;

void main() {
  v_uv = a_uv;
  gl_Position = u_mvp * vec4(a_position, 1.0);
}
