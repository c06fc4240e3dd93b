// The demo page's logic (index.html): loads the module, adds the chosen target, feeds the camera
// or a video file frame by frame, draws the result and shows state and frame rate.
import { loadNft } from '../nft.js';

const canvas = document.getElementById('view');
const video = document.getElementById('video');
const status = document.getElementById('status');
let nft = null;
let session = null;
let targetFile = null;
let running = false;

function show(text) { status.textContent = text; }

// (Re)starts the session once a target and a playing video are there. Calls are serialised: a
// new target or video while one is starting waits for it.
let starting = Promise.resolve();
function startSession() {
  starting = starting.then(start, start);
  return starting;
}

async function start() {
  if (!targetFile || video.videoWidth === 0) return;
  if (session) session.delete();
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  session = nft.createSession(canvas, { render: { overlay: false } });
  const bitmap = await createImageBitmap(targetFile);
  try {
    await session.addTarget(bitmap, { name: targetFile.name, widthMetres: Number(document.getElementById('width').value) });
  } catch (e) {
    show(e.message);
    session.delete();
    session = null;
    return;
  }
  const info = session.info();
  show('target ' + info.targets[0].name + ': ' + info.targets[0].stars + ' stars; GPU ' + info.gpuRenderer);
  if (!running) {
    running = true;
    requestAnimationFrame(loop);
  }
}

let last = performance.now();
let fps = 0;
// The last 120 frames' process() times: the demo shows their 99th percentile beside the current
// one, as a user judges a tracker by its worst frames.
const recentMs = [];
function p99(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
}
function loop(now) {
  if (session && video.readyState >= 2) {
    const result = session.process(video, now);
    session.render();
    fps = 0.9 * fps + 0.1 * (1000 / Math.max(now - last, 1));
    last = now;
    recentMs.push(result.timingsMs.total);
    if (recentMs.length > 120) recentMs.shift();
    const t = result.targets[0];
    show(`${t.name}: ${t.state}${t.found ? ' (found, ' + t.inliers + ' inliers)' : ''} | tracker ` +
         `${result.timingsMs.total.toFixed(1)} ms (p99 ${p99(recentMs).toFixed(1)}) | ${fps.toFixed(0)} frames/s`);
  }
  requestAnimationFrame(loop);
}

document.getElementById('target').addEventListener('change', (e) => {
  targetFile = e.target.files[0];
  startSession();
});
document.getElementById('camera').addEventListener('click', async () => {
  try {
    video.srcObject = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: 'environment', width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
  } catch (e) {
    show('no camera: ' + e.message + ' (a camera needs HTTPS or localhost)');
    return;
  }
  await video.play();  // its loadedmetadata event starts the session
});
document.getElementById('video-file').addEventListener('change', async (e) => {
  video.srcObject = null;
  video.src = URL.createObjectURL(e.target.files[0]);
  await video.play();  // its loadedmetadata event starts the session
});
video.addEventListener('loadedmetadata', startSession);

loadNft().then((module) => {
  nft = module;
  show('choose a target image, then the camera or a video');
}).catch((e) => show('could not load the module: ' + e.message));
