// Samples the quad's image; alpha = the image's alpha × u_opacity (blended over the frame).
uniform sampler2D u_image;
uniform float u_opacity;
varying vec2 v_uv;

void main() {
  vec4 c = texture2D(u_image, v_uv);
  gl_FragColor = vec4(c.rgb, c.a * u_opacity);
}
