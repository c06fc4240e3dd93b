// The text image (RGBA, straight alpha), blended over the frame.
uniform sampler2D u_text;
varying vec2 v_uv;

void main() {
  gl_FragColor = texture2D(u_text, v_uv);
}
