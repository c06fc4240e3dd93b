// Per-vertex colour (flat per face: every vertex of a face carries the face's shaded colour).
varying vec4 v_color;

void main() {
  gl_FragColor = v_color;
}
