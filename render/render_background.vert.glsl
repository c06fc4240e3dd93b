// Camera frame as background: a unit quad over the viewport (the image's rectangle in the
// target). a_position runs over (0,0)..(1,1) in image coordinates (x right, y down, 1 = the
// image's width/height). u_y_sign = +1 for targets whose row 0 is the picture's top row
// (offscreen, render/camera.h), −1 for a window's default framebuffer. u_region = (u0, v0,
// du, dv): where the image lies in the frame texture, in texture coordinates (row 0 = top).
attribute vec2 a_position;
uniform vec4 u_region;
uniform float u_y_sign;
varying vec2 v_uv;

void main() {
  v_uv = u_region.xy + a_position * u_region.zw;
  vec2 ndc = a_position * 2.0 - 1.0;
  gl_Position = vec4(ndc.x, ndc.y * u_y_sign, 0.0, 1.0);
}
