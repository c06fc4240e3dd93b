// One flat colour per draw call (points or lines).
uniform vec4 u_color;

void main() {
  gl_FragColor = u_color;
}
