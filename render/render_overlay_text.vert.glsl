// The overlay's text box: a unit quad (a_position over (0,0)..(1,1), x right, y down) placed at
// u_rect = (x0, y0, width, height) in NDC units measured from the picture's top-left (y grows
// downwards before u_y_sign: +1 for offscreen targets, −1 for a window's default framebuffer).
// u_uv_scale: the part of the (larger, reused) texture holding the text image.
attribute vec2 a_position;
uniform vec4 u_rect;
uniform vec2 u_uv_scale;
uniform float u_y_sign;
varying vec2 v_uv;

void main() {
  v_uv = a_position * u_uv_scale;
  vec2 p = u_rect.xy + a_position * u_rect.zw;
  gl_Position = vec4(p.x, p.y * u_y_sign, 0.0, 1.0);
}
