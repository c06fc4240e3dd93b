// Default precisions of every fragment shader: highp where the GPU has it, else mediump
// (seeds/000 table 3: highp is optional in GLSL ES 1.00 fragment shaders). Defining
// NFT_NO_HIGHP takes the mediump path on any GPU, to see what a mediump-only phone does.
// Samplers too: GLSL ES 1.00 makes them lowp by default, and Mesa then returns texels at half
// precision (an RGBA8 byte of 77 read back as 76.948/255).
#if defined(GL_FRAGMENT_PRECISION_HIGH) && !defined(NFT_NO_HIGHP)
precision highp float;
precision highp sampler2D;
#else
precision mediump float;
precision mediump sampler2D;
#endif
