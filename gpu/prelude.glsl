// Default float precision of every fragment shader: highp where the GPU has it, else mediump
// (seeds/000 table 3: highp is optional in GLSL ES 1.00 fragment shaders). Defining
// NFT_NO_HIGHP takes the mediump path on any GPU, to see what a mediump-only phone does.
#if defined(GL_FRAGMENT_PRECISION_HIGH) && !defined(NFT_NO_HIGHP)
precision highp float;
#else
precision mediump float;
#endif
