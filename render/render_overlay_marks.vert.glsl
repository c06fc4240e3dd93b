// Patch points and match lines in camera-image pixels (OpenCV: pixel (i, j) centred at (i, j),
// y down; render/camera.h). u_to_ndc = (sx, sy, ox, oy): ndc = a_position * (sx, sy) + (ox, oy),
// y already signed for the target's row order. u_point_size: gl_PointSize for GL_POINTS.
attribute vec2 a_position;
uniform vec4 u_to_ndc;
uniform float u_point_size;

void main() {
  gl_PointSize = u_point_size;
  gl_Position = vec4(a_position * u_to_ndc.xy + u_to_ndc.zw, 0.0, 1.0);
}
