// TypeScript declarations of the tracker's JavaScript API (web/nft.js).

/** Loads the WebAssembly module (nft_web.js and nft_web.wasm beside nft.js). */
export function loadNft(moduleOptions?: object): Promise<Nft>;

/** Camera frames and target images the API accepts. */
export type ImageSource =
  | ImageData
  | ImageBitmap
  | HTMLImageElement
  | HTMLVideoElement
  | HTMLCanvasElement
  | OffscreenCanvas;

/** Configuration keys as in config/default.yaml, nested; omitted keys keep their defaults. */
export type Config = { [section: string]: { [key: string]: unknown } };

export class Nft {
  /** A session on `canvas` (the element, or a CSS selector): a WebGL 1 context is made there. */
  createSession(canvas: HTMLCanvasElement | string, config?: Config): Session;
}

/** Which lane produced a target's result. */
export type TrackingState = "detecting" | "tracking" | "lost";

export interface Pose {
  /** Rotation target → camera, row-major 3×3. */
  R: number[];
  /** Translation: metres with a known target width, else target pixels. */
  t: [number, number, number];
}

export interface TargetResult {
  id: number;
  name: string;
  state: TrackingState;
  /** True when corners, homography, pose and viewMatrix hold for this frame. */
  found: boolean;
  /** The target image's corners in frame pixels: upper left, upper right, lower right, lower left; empty when not found. */
  corners: [number, number][];
  /**
   * What the camera sees of the target's outline, polylines of frame pixels: a flat target's closed quad; a curved
   * label's edges and its can's or cup's silhouette, the parts facing the camera. Empty when not found.
   */
  outline: [number, number][][];
  /** Keypoint matches or NCC patches of the lane that produced the result. */
  inliers: number;
  /** Mean reprojection error of the inliers, pixels. */
  reprojectionErrorPx: number;
  /** Why the target was not found, when it was not. */
  rejection: string;
  /** Target-image pixels → frame pixels, row-major 3×3 (when found). */
  homography?: number[];
  pose?: Pose;
  /** OpenGL view matrix of the pose, column-major 4×4 (three.js Matrix4.fromArray) (when found). */
  viewMatrix?: number[];
}

export interface FrameResult {
  /** 0-based index of the frame in this session. */
  frame: number;
  width: number;
  height: number;
  /** True while a search runs on a detection worker (native async_detection); always false in
   *  the browser, where the detection runs in process(). */
  searchInFlight: boolean;
  targets: TargetResult[];
  /** Time per stage of the process() call, milliseconds. */
  timingsMs: {
    convert: number; fast: number; describe: number; match: number; ransac: number;
    detectionPose: number; pyramid: number; coarse: number; fine: number; trackingPose: number; refine: number;
    total: number;
  };
}

export interface SessionInfo {
  version: string;
  gpuRenderer: string;
  glVersion: string;
  context: string;
  targets: { id: number; name: string; widthMetres: number; width: number; height: number; stars: number; keypoints: number;
             geometry: 'planar' | 'cylinder' | 'cone' }[];
}

/**
 * The surface a target is printed on, metres: omitted for a flat print; a label around a can
 * (the image is the label unrolled, widthMetres its arc length); a sleeve on a cup.
 */
export type TargetGeometry =
  | { kind: 'planar' }
  | { kind: 'cylinder'; radiusMetres: number }
  | { kind: 'cone'; topRadiusMetres: number; bottomRadiusMetres: number; sideLengthMetres: number;
      coneLabel?: 'sector' | 'rectangle' };

export class Session {
  /** Adds a target from a URL or an image; resolves to its id. Throws NftError for an image too plain to track. */
  addTarget(source: string | ImageSource,
            options?: { name?: string; widthMetres?: number; geometry?: TargetGeometry }): Promise<number>;
  /**
   * Adds an instant target: the frame's region inside the quad (corners upper left, upper right, lower right,
   * lower left, frame pixels), tracked from that quad on that frame; returns its id. Throws NftError naming the quad.
   */
  /**
   * Adds a trained target model (a .nftm file's bytes, e.g. the recognition service's GET /targets/ID); returns its
   * id. Throws NftError for an empty or corrupt model.
   */
  addTargetModel(model: ArrayBuffer | Uint8Array, options?: { name?: string; widthMetres?: number }): number;
  addTargetFromFrame(frame: ImageSource, quad: ([number, number] | { x: number; y: number })[],
                     options?: { name?: string; widthMetres?: number }): number;
  /** Tracks the targets in one frame (timestamp in milliseconds, default performance.now()). */
  process(frame: ImageSource, timestampMs?: number): FrameResult;
  /** Draws the last frame and the augmentations on the canvas (viewport in pixels from the bottom left; default: all of it). */
  render(viewport?: { x: number; y: number; width: number; height: number }): void;
  /** OpenGL projection matrix of the camera, column-major 4×4 (three.js). */
  projectionMatrix(near: number, far: number): number[];
  removeTarget(id: number): void;
  resetTracking(): void;
  setOverlayVisible(visible: boolean): void;
  setAugmentationsVisible(visible: boolean): void;
  info(): SessionInfo;
  /** Frees the session and its WebGL objects. */
  delete(): void;
}
