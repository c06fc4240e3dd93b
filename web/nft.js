// The tracker's JavaScript API (issue 25): nft::Session in a web page, its detection and
// tracking lanes compiled to WebAssembly and its GPU work on WebGL 1 (OpenGL ES 2.0, GLSL ES
// 1.00), the augmentations drawn on the page's canvas. Declarations: nft.d.ts.
//
//   import { loadNft } from './nft.js';
//   const nft = await loadNft();
//   const session = nft.createSession(document.querySelector('canvas'), { tracking: { max_targets: 2 } });
//   const book = await session.addTarget('book.jpg', { name: 'book', widthMetres: 0.185 });
//   function frame() {
//     const result = session.process(video);          // <video>, ImageData, ImageBitmap, canvas
//     session.render();                                // the camera image + augmentations
//     const t = result.targets[0];
//     if (t.found) object3d.matrix.fromArray(t.viewMatrix);   // three.js, with
//     requestAnimationFrame(frame);                    // camera.projectionMatrix.fromArray(session.projectionMatrix(0.01, 10))
//   }
//
// Every call is synchronous except loadNft() and addTarget() of a URL. Errors are thrown as
// JavaScript Errors named 'NftError' whose message names the argument or key and what was
// expected (the C++ library's messages).
import createNftModule from './nft_web.js';

/**
 * Loads the WebAssembly module (nft_web.js and nft_web.wasm beside this file).
 * @param {object} [moduleOptions] emscripten Module options (e.g. locateFile).
 * @returns {Promise<Nft>}
 */
export async function loadNft(moduleOptions = {}) {
  const module = await createNftModule(moduleOptions);
  return new Nft(module);
}

/** The loaded module: makes sessions. */
export class Nft {
  constructor(module) {
    this.module = module;
  }

  /**
   * A session on `canvas`: a WebGL 1 context is created there; render() draws into it.
   * @param {HTMLCanvasElement|string} canvas the element, or a CSS selector naming it.
   * @param {object} [config] configuration keys as in config/default.yaml, nested objects
   *   (e.g. { tracking: { max_targets: 4 }, render: { overlay: false } }); omitted keys keep
   *   their defaults.
   */
  createSession(canvas, config = {}) {
    return new Session(this.module, canvas, config);
  }
}

function nftError(message) {
  const error = new Error(message);
  error.name = 'NftError';
  return error;
}

function canvasSelector(canvas) {
  if (typeof canvas === 'string') return canvas;
  if (typeof HTMLCanvasElement !== 'undefined' && canvas instanceof HTMLCanvasElement) {
    if (!canvas.id) canvas.id = 'nft-canvas-' + Math.random().toString(36).slice(2);
    return '#' + canvas.id;
  }
  throw nftError('createSession: canvas must be an HTMLCanvasElement or a CSS selector, got ' + typeof canvas);
}

// A 2D canvas that turns images, video frames and bitmaps into RGBA pixels.
let scratch = null;
function pixelsOf(source, what) {
  if (typeof ImageData !== 'undefined' && source instanceof ImageData) return source;
  let width = 0;
  let height = 0;
  if (typeof HTMLVideoElement !== 'undefined' && source instanceof HTMLVideoElement) {
    width = source.videoWidth;
    height = source.videoHeight;
  } else if (typeof HTMLImageElement !== 'undefined' && source instanceof HTMLImageElement) {
    width = source.naturalWidth;
    height = source.naturalHeight;
  } else if (source && typeof source.width === 'number' && typeof source.height === 'number') {
    width = source.width;  // ImageBitmap, HTMLCanvasElement, OffscreenCanvas, VideoFrame
    height = source.height;
  } else {
    throw nftError(what + ': expected ImageData, ImageBitmap, an <img>, <video> or <canvas> element, got ' + source);
  }
  if (!(width > 0 && height > 0)) throw nftError(what + ': the image has no pixels yet (' + width + 'x' + height + ')');
  if (!scratch) {
    scratch = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(width, height) : document.createElement('canvas');
  }
  if (scratch.width !== width || scratch.height !== height) {
    scratch.width = width;
    scratch.height = height;
  }
  const context = scratch.getContext('2d', { willReadFrequently: true });
  context.drawImage(source, 0, 0);
  return context.getImageData(0, 0, width, height);
}

async function imageOf(source) {
  if (typeof source !== 'string') return source;
  const response = await fetch(source);
  if (!response.ok) throw nftError('addTarget: cannot fetch ' + source + ' (HTTP ' + response.status + ')');
  return createImageBitmap(await response.blob(), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

/** One tracker (see the top of this file). */
export class Session {
  constructor(module, canvas, config) {
    this.module = module;
    this.frameBuffer = 0;  // wasm address of the last frame's pixels (render() draws them)
    this.frameBytes = 0;
    const selector = canvasSelector(canvas);
    this.canvas = typeof canvas === 'string' ? document.querySelector(canvas) : canvas;
    this.web = new module.WebSession(selector, JSON.stringify(config));
  }

  /**
   * Adds a target (an image to find and track).
   * @param {string|ImageData|ImageBitmap|HTMLImageElement|HTMLCanvasElement} source a URL or image.
   * @param {{name?: string, widthMetres?: number, geometry?: Object}} [options] name (default
   *   'target-N'); physical width in metres (poses in metres when given, else in target pixels; a
   *   curved label's arc length); geometry, the surface it is printed on: omitted for a flat print,
   *   { kind: 'cylinder', radiusMetres } for a label around a can, { kind: 'cone', topRadiusMetres,
   *   bottomRadiusMetres, sideLengthMetres, coneLabel: 'sector' | 'rectangle' } for a cup's sleeve.
   *   A curved target is checked against its label (NftError naming the field, e.g. radius_m),
   *   found by PnP on its surface and followed on it, alone or beside other targets.
   * @returns {Promise<number>} the target's id.
   */
  async addTarget(source, options = {}) {
    const image = pixelsOf(await imageOf(source), 'addTarget');
    const name = options.name ?? (typeof source === 'string' ? source.split('/').pop() : '');
    const address = this.module._malloc(image.data.length);
    try {
      this.module.HEAPU8.set(image.data, address);
      return this.web.addTargetRgba(address, image.width, image.height, name, options.widthMetres ?? 0,
                                    options.geometry ?? null);
    } finally {
      this.module._free(address);
    }
  }

  /**
   * Adds a trained target model: the bytes of a .nftm file (nft_train's output, or what the
   * recognition service's GET /targets/ID answers: see recognition.js).
   * @param {ArrayBuffer|Uint8Array} model the model file's bytes.
   * @param {{name?: string, widthMetres?: number}} [options] name (default 'model-N'); physical
   *   width in metres (default: the model's own).
   * @returns {number} the target's id (Session::addTargetModel: no file is written). Throws
   *   NftError for an empty, truncated or corrupt model (naming it and what is wrong), a name
   *   taken or another descriptor type than the session's targets'.
   */
  addTargetModel(model, options = {}) {
    let bytes;
    if (model instanceof Uint8Array) bytes = model;
    else if (model instanceof ArrayBuffer) bytes = new Uint8Array(model);
    else throw nftError('addTargetModel: model must be an ArrayBuffer or a Uint8Array, got ' + typeof model);
    const address = this.module._malloc(Math.max(1, bytes.length));
    try {
      this.module.HEAPU8.set(bytes, address);
      return this.web.addTargetModel(address, bytes.length, options.name ?? '', options.widthMetres ?? 0);
    } finally {
      this.module._free(address);
    }
  }

  /**
   * Adds an instant target: the region of a camera frame inside `quad` ("point the camera at a
   * poster, tap, track"), rectified, trained, and tracked from that quad on that frame — the next
   * process() follows it without a detection.
   * @param {ImageData|ImageBitmap|HTMLVideoElement|HTMLCanvasElement} frame of the session's frame size.
   * @param {Array<[number, number]|{x: number, y: number}>} quad the target's corners in frame
   *   pixels: upper left, upper right, lower right, lower left (as FrameResult's corners).
   * @param {{name?: string, widthMetres?: number}} [options] name (default 'frame target N');
   *   physical width in metres.
   * @returns {number} the target's id. Throws NftError naming the quad (not 4 corners, outside the
   *   frame, not convex and clockwise, a side under 32 px) or the target (too plain).
   */
  addTargetFromFrame(frame, quad, options = {}) {
    const image = pixelsOf(frame, 'addTargetFromFrame');
    const xy = [];
    for (const p of quad) {
      if (Array.isArray(p)) xy.push(Number(p[0]), Number(p[1]));
      else xy.push(Number(p.x), Number(p.y));
    }
    const address = this.module._malloc(image.data.length);
    try {
      this.module.HEAPU8.set(image.data, address);
      return this.web.addTargetFromFrameRgba(address, image.width, image.height, xy, options.name ?? '',
                                             options.widthMetres ?? 0);
    } finally {
      this.module._free(address);
    }
  }

  /**
   * Tracks the targets in one camera frame.
   * @param {ImageData|ImageBitmap|HTMLVideoElement|HTMLCanvasElement} frame
   * @param {number} [timestampMs] capture time, milliseconds (default: performance.now()).
   * @returns {FrameResult} per-target state, corners (frame pixels: upper left, upper right,
   *   lower right, lower left), pose (R row-major, t), viewMatrix (column-major 4×4, three.js's
   *   Matrix4.fromArray), timings in milliseconds.
   */
  process(frame, timestampMs = performance.now()) {
    const image = pixelsOf(frame, 'process');
    if (this.frameBytes !== image.data.length) {
      if (this.frameBuffer) this.module._free(this.frameBuffer);
      this.frameBuffer = this.module._malloc(image.data.length);
      this.frameBytes = image.data.length;
    }
    this.module.HEAPU8.set(image.data, this.frameBuffer);
    return this.web.processRgba(this.frameBuffer, image.width, image.height, timestampMs);
  }

  /**
   * Draws the last processed frame and the found targets' augmentations on the canvas.
   * @param {{x:number, y:number, width:number, height:number}} [viewport] pixels, from the
   *   canvas's bottom left; default: the whole drawing buffer.
   */
  render(viewport) {
    const v = viewport ?? { x: 0, y: 0, width: this.canvas.width, height: this.canvas.height };
    this.web.render(v.x, v.y, v.width, v.height);
  }

  /** The camera's OpenGL projection matrix, column-major (three.js: projectionMatrix.fromArray). */
  projectionMatrix(near, far) {
    return this.web.projectionMatrix(near, far);
  }

  removeTarget(id) { this.web.removeTarget(id); }
  resetTracking() { this.web.resetTracking(); }
  setOverlayVisible(visible) { this.web.setOverlayVisible(visible); }
  setAugmentationsVisible(visible) { this.web.setAugmentationsVisible(visible); }
  /** Version, GL renderer, context and the targets' names, sizes and quality. */
  info() { return this.web.info(); }

  /** Frees the session, its WebGL objects and the frame buffer. */
  delete() {
    this.web.delete();
    if (this.frameBuffer) this.module._free(this.frameBuffer);
    this.frameBuffer = 0;
    this.frameBytes = 0;
  }
}
