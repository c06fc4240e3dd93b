// Coloured geometry in target coordinates (metres; render/camera.h): the cube's triangles,
// the outline and the axes. u_mvp = projection · model-view (column-major, as GL takes it).
attribute vec3 a_position;
attribute vec4 a_color;
uniform mat4 u_mvp;
varying vec4 v_color;

void main() {
  v_color = a_color;
  gl_Position = u_mvp * vec4(a_position, 1.0);
}
