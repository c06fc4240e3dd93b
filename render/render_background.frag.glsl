// Samples the camera frame (Luminance8 gives gray, Rgb8/Rgba8 colour); opaque.
uniform sampler2D u_frame;
varying vec2 v_uv;

void main() {
  gl_FragColor = vec4(texture2D(u_frame, v_uv).rgb, 1.0);
}
