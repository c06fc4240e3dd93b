// The recognition service's JavaScript client (issue 48, item 3; the service: service/, its HTTP API
// in docs/catalogue_recognition.md). A page's Session asks the service which catalogue target is in
// view only when it finds none of its own targets, at most once per interval, without waiting for
// the answer (fetch() runs while the page goes on processing frames), and tracks the model that
// comes back as any other target. The C++ (nft::SessionRecognition) and Python
// (nft_recognition.client) clients do the same.
//
//   import { loadNft } from './nft.js';
//   import { RecognitionClient, SessionRecognition } from './recognition.js';
//   const nft = await loadNft();
//   const session = nft.createSession('#view');
//   const client = new RecognitionClient('https://recognition.example', { token: TOKEN });
//   const recognition = new SessionRecognition(session, client, { minIntervalMs: 1000 });
//   function frame() {
//     const result = recognition.process(video);   // session.process(), plus the service when needed
//     session.render();
//     requestAnimationFrame(frame);
//   }
//
// The service must allow the page's origin (`nft-recognition serve --cors-origin ORIGIN`) unless
// the page is served from the service's own origin. Errors of the service or of the network are
// RecognitionErrors: thrown by RecognitionClient's calls, kept (never thrown) by
// SessionRecognition in its `errors`.

/** A request the service refused or that did not reach it. */
export class RecognitionError extends Error {
  /**
   * @param {string} message what was asked and what came back (the service's own error message).
   * @param {number} status the HTTP status; 0 when the service could not be reached or timed out.
   */
  constructor(message, status) {
    super(message);
    this.name = 'RecognitionError';
    this.status = status;
  }
}

/** HTTP calls to `nft-recognition serve`. */
export class RecognitionClient {
  /**
   * @param {string} url the service's base URL, e.g. 'http://127.0.0.1:8080'.
   * @param {{token?: string|null, timeoutMs?: number}} [options] the bearer token (null: a service
   *   started with --no-auth); how long a call may take, milliseconds (default 10000).
   */
  constructor(url, options = {}) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new RecognitionError("RecognitionClient: url must be an http:// or https:// URL, got '" + url + "'", 0);
    }
    const timeoutMs = options.timeoutMs ?? 10000;
    if (!(timeoutMs > 0)) throw new RecognitionError('RecognitionClient: timeoutMs must be > 0, got ' + timeoutMs, 0);
    this.url = url.replace(/\/+$/, '');
    this.token = options.token ?? null;
    this.timeoutMs = timeoutMs;
  }

  async call(method, path, body, contentType) {
    const headers = {};
    if (this.token) headers.Authorization = 'Bearer ' + this.token;
    if (contentType) headers['Content-Type'] = contentType;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    let response;
    try {
      response = await fetch(this.url + path, { method, headers, body, signal: abort.signal });
    } catch (e) {
      const why = abort.signal.aborted ? 'no answer within ' + this.timeoutMs + ' ms' : String(e.message || e);
      throw new RecognitionError(method + ' ' + this.url + path + ': ' + why, 0);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      let message = await response.text();
      try {
        message = JSON.parse(message).error ?? message;
      } catch (_) { /* not JSON: the text as it is */ }
      throw new RecognitionError(method + ' ' + this.url + path + ': ' + response.status + ' ' + message, response.status);
    }
    return response;
  }

  /**
   * POST /recognize with an encoded frame.
   * @param {Blob} image a JPEG or PNG (e.g. canvas.toBlob's).
   * @returns {Promise<object>} the service's answer: { found, target: { id, name, ... } | null,
   *   homography (3×3 rows, target pixels → frame pixels), quad (4 corners, frame pixels), score,
   *   inliers, time_ms: { describe, shortlist, verify, total } }.
   */
  async recognizeImage(image) {
    const response = await this.call('POST', '/recognize', image, image.type || 'image/jpeg');
    return response.json();
  }

  /**
   * GET /targets/ID: the target's model, to give Session.addTargetModel.
   * @param {number} targetId the catalogue's id (an answer's target.id).
   * @returns {Promise<ArrayBuffer>} the .nftm file's bytes.
   */
  async downloadModel(targetId) {
    if (!Number.isInteger(targetId) || targetId < 0) {
      throw new RecognitionError('downloadModel: targetId must be an integer >= 0, got ' + targetId, 0);
    }
    const response = await this.call('GET', '/targets/' + targetId);
    return response.arrayBuffer();
  }
}

// The frame as a JPEG: drawn now (a <video> moves on), encoded asynchronously.
function jpegOf(frame, quality) {
  let canvas;
  if (typeof OffscreenCanvas !== 'undefined') canvas = new OffscreenCanvas(1, 1);
  else canvas = document.createElement('canvas');
  const width = frame.videoWidth || frame.width;
  const height = frame.videoHeight || frame.height;
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (typeof ImageData !== 'undefined' && frame instanceof ImageData) context.putImageData(frame, 0, 0);
  else context.drawImage(frame, 0, 0);
  if (canvas.convertToBlob) return canvas.convertToBlob({ type: 'image/jpeg', quality });
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
}

/**
 * A Session with the service behind it: process(frame) is session.process(frame); when none of
 * the session's targets is found, the frame is sent to the service (one request at a time, at
 * most one per minIntervalMs), and a target it recognises is downloaded and added to the session
 * at a later process() (a target already added is never asked for again), then tracked as the
 * session's own targets are.
 */
export class SessionRecognition {
  /**
   * @param {Session} session an nft.js Session.
   * @param {RecognitionClient} client
   * @param {{minIntervalMs?: number, jpegQuality?: number}} [options] the rate limit,
   *   milliseconds between two requests (default 1000); the JPEG quality of a sent frame in
   *   (0, 1] (default 0.85).
   */
  constructor(session, client, options = {}) {
    const minIntervalMs = options.minIntervalMs ?? 1000;
    const jpegQuality = options.jpegQuality ?? 0.85;
    if (!(minIntervalMs >= 0)) throw new RecognitionError('SessionRecognition: minIntervalMs must be >= 0, got ' + minIntervalMs, 0);
    if (!(jpegQuality > 0 && jpegQuality <= 1)) {
      throw new RecognitionError('SessionRecognition: jpegQuality must be in (0, 1], got ' + jpegQuality, 0);
    }
    this.session = session;
    this.client = client;
    this.minIntervalMs = minIntervalMs;
    this.jpegQuality = jpegQuality;
    /** Requests made so far. */
    this.requests = 0;
    /** RecognitionErrors (and NftErrors of a model that would not load) of failed requests, newest last. */
    this.errors = [];
    /** Catalogue target id → the session's target id. */
    this.added = new Map();
    this.inFlight = null;  // the request's promise, until it settles
    this.ready = null;     // { target, model } of an answer not yet added
    this.last = -Infinity;
  }

  /** True while a request is in flight. */
  get pending() { return this.inFlight !== null; }

  /** Resolves when no request is in flight (for a page that wants to wait, e.g. a test). */
  async idle() {
    while (this.inFlight) await this.inFlight;
  }

  async ask(frame) {
    const answer = await this.client.recognizeImage(await jpegOf(frame, this.jpegQuality));
    if (!answer.found || this.added.has(answer.target.id)) return null;
    return { target: answer.target, model: await this.client.downloadModel(answer.target.id) };
  }

  /**
   * session.process(frame, timestampMs), and the service when nothing is found.
   * @returns {FrameResult} the session's result.
   */
  process(frame, timestampMs = performance.now()) {
    if (this.ready) {
      const { target, model } = this.ready;
      this.ready = null;
      if (!this.added.has(target.id)) {
        try {
          this.added.set(target.id, this.session.addTargetModel(model, { name: target.name }));
        } catch (e) {
          this.errors.push(e);
        }
      }
    }
    const result = this.session.process(frame, timestampMs);
    const now = performance.now();
    if (!result.targets.some((t) => t.found) && !this.inFlight && now - this.last >= this.minIntervalMs) {
      this.last = now;
      this.requests += 1;
      this.inFlight = this.ask(frame)
        .then((got) => { if (got) this.ready = got; })
        .catch((e) => { this.errors.push(e); })
        .finally(() => { this.inFlight = null; });
    }
    return result;
  }
}
