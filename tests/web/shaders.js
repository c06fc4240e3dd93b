// Compiles and links each program of programs/index.json (NAME: NAME.vert, NAME.frag and
// NAME.nohighp.frag, written by nft_shader_sources) in a WebGL 1 context, with every WebGL
// extension the shaders may ask for enabled, and reports each failure with the driver's log.
// nft_shader_sources replaced the GL_EXT_draw_buffers directive by a marker comment for the
// offline compiler; the real directive goes back in here (WebGL names the shader extension
// GL_EXT_draw_buffers too).
const MARKER = '// NFT_GL_EXT_draw_buffers (extension line removed for glslangValidator)\n';
const DIRECTIVE = '#extension GL_EXT_draw_buffers : require\n';

function compile(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  const ok = gl.getShaderParameter(shader, gl.COMPILE_STATUS);
  return { shader, ok, log: ok ? '' : gl.getShaderInfoLog(shader) };
}

function build(gl, vertSource, fragSource) {
  const vert = compile(gl, gl.VERTEX_SHADER, vertSource);
  const frag = compile(gl, gl.FRAGMENT_SHADER, fragSource);
  let error = '';
  if (!vert.ok) error = 'vertex: ' + vert.log;
  else if (!frag.ok) error = 'fragment: ' + frag.log;
  else {
    const program = gl.createProgram();
    gl.attachShader(program, vert.shader);
    gl.attachShader(program, frag.shader);
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) error = 'link: ' + gl.getProgramInfoLog(program);
    gl.deleteProgram(program);
  }
  gl.deleteShader(vert.shader);
  gl.deleteShader(frag.shader);
  return error;
}

async function text(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
  return r.text();
}

(async () => {
  const result = { programs: 0, builds: 0, failures: [], renderer: '', extensions: [] };
  try {
    const gl = document.getElementById('gl').getContext('webgl', { antialias: false });
    if (!gl) throw new Error('no WebGL 1 context');
    for (const name of ['OES_texture_float', 'OES_texture_half_float', 'WEBGL_color_buffer_float',
                        'EXT_color_buffer_half_float', 'EXT_shader_texture_lod', 'OES_standard_derivatives',
                        'WEBGL_draw_buffers']) {
      if (gl.getExtension(name)) result.extensions.push(name);
    }
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    result.renderer = debug ? gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    const names = JSON.parse(await text('programs/index.json'));
    for (const name of names) {
      const vert = await text('programs/' + name + '.vert');
      for (const fragFile of [name + '.frag', name + '.nohighp.frag']) {
        const frag = (await text('programs/' + fragFile)).replace(MARKER, DIRECTIVE);
        const error = build(gl, vert, frag);
        result.builds += 1;
        if (error) {
          result.failures.push({ program: fragFile, error });
          console.log('FAIL ' + fragFile + ': ' + error);
        }
      }
      result.programs += 1;
    }
    console.log(`${result.programs} programs, ${result.builds} builds, ${result.failures.length} failed, on ${result.renderer}`);
  } catch (e) {
    result.error = String(e && e.stack || e);
    console.log('error: ' + result.error);
  }
  window.nftResult = result;
  window.nftDone = true;
})();
