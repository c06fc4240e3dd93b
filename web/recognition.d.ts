// Declarations of web/recognition.js: the recognition service's client (issue 48).
import { FrameResult, ImageSource, Session } from './nft';

/** A request the service refused (status: its HTTP status) or that did not reach it (status 0). */
export class RecognitionError extends Error {
  readonly status: number;
}

/** The answer of POST /recognize (docs/catalogue_recognition.md). */
export interface RecognitionAnswer {
  found: boolean;
  target: { id: number; name: string; [key: string]: unknown } | null;
  /** 3×3 rows, target pixels → frame pixels. */
  homography: number[][] | null;
  /** The target's corners in the frame, pixels: upper left, upper right, lower right, lower left. */
  quad: [number, number][] | null;
  score?: number;
  inliers?: number;
  time_ms: { [stage: string]: number };
}

export class RecognitionClient {
  /** url: the service's base URL; token: its bearer token (null for --no-auth); timeoutMs: per call (default 10000). */
  constructor(url: string, options?: { token?: string | null; timeoutMs?: number });
  /** POST /recognize with a JPEG or PNG frame. */
  recognizeImage(image: Blob): Promise<RecognitionAnswer>;
  /** GET /targets/ID: the model's bytes, for Session.addTargetModel. */
  downloadModel(targetId: number): Promise<ArrayBuffer>;
}

/** session.process() with the service asked, off the frame loop, when none of the session's targets is found. */
export class SessionRecognition {
  constructor(session: Session, client: RecognitionClient, options?: { minIntervalMs?: number; jpegQuality?: number });
  readonly requests: number;
  readonly errors: Error[];
  /** Catalogue target id → the session's target id. */
  readonly added: Map<number, number>;
  readonly pending: boolean;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  process(frame: ImageSource, timestampMs?: number): FrameResult;
}
