// Tracks a case's frames with the web module (web/nft.js) and reports, per frame, the target's
// state and corners and the tracker's time (process() alone: decoding the PNG is not counted).
// A case (JSON, named by ?case=): { "target": URL, "frames": [URL, ...], "config": {...},
// "render": bool, "initQuad": [[x, y] × 4] (optional) }. With render, every frame is also drawn on
// the canvas (the augmentations' shaders run in WebGL too). With initQuad the target is the first
// frame's region inside that quad (Session.addTargetFromFrame) instead of the target image. With
// checkGeometry the result also holds what addTarget's geometry option answers (geometryErrors).
import { loadNft } from './nft/nft.js';
import { bitmap, runTestPage } from './page.js';

// What addTarget's geometry option answers (check_results.py judges the messages): a bad kind, a
// bad radius, and a can's label beside the target already added — accepted (curved and flat
// targets share a Session), its geometry in info(), then removed so the frames track the case's
// target alone.
async function geometryErrors(session, target) {
  const errors = {};
  const cases = {
    kind: { kind: 'barrel' },
    radius: { kind: 'cylinder', radiusMetres: -1 },
    cylinder: { kind: 'cylinder', radiusMetres: 0.033 },
  };
  for (const [key, geometry] of Object.entries(cases)) {
    try {
      const id = await session.addTarget(target, { name: 'can-' + key, widthMetres: 0.1, geometry });
      const added = session.info().targets.find((t) => t.id === id);
      errors[key] = 'accepted: ' + JSON.stringify(added ? added.geometry : null);
      session.removeTarget(id);
    } catch (e) {
      errors[key] = e.name + ': ' + e.message;
    }
  }
  errors.targets = session.info().targets;
  return errors;
}

runTestPage({ frames: [] }, async (result) => {
  const caseUrl = new URLSearchParams(location.search).get('case');
  const testCase = await (await fetch(caseUrl)).json();
  const first = await bitmap(testCase.frames[0]);
  const canvas = document.getElementById('view');
  canvas.width = first.width;
  canvas.height = first.height;
  // [session]
  const nft = await loadNft();
  const session = nft.createSession(canvas, testCase.config || {});  // keys of config/default.yaml
  // [session]
  const t0 = performance.now();
  // [add_target]
  if (testCase.initQuad) session.addTargetFromFrame(first, testCase.initQuad, { name: 'target' });  // a quad of a frame
  else await session.addTarget(testCase.target, { name: 'target' });  // URL, ImageData, ImageBitmap, <img>
  // [add_target]
  result.addTargetMs = performance.now() - t0;
  if (testCase.checkGeometry) result.geometry = await geometryErrors(session, testCase.target);
  result.info = session.info();
  console.log('target added in ' + result.addTargetMs.toFixed(0) + ' ms on ' + result.info.gpuRenderer);
  for (let i = 0; i < testCase.frames.length; ++i) {
    const frame = i === 0 ? first : await bitmap(testCase.frames[i]);
    const start = performance.now();
    // [frame]
    const r = session.process(frame, i * 1000 / 30);  // <video>, ImageData, ImageBitmap or a canvas; timestamp ms
    const wallMs = performance.now() - start;
    if (testCase.render) session.render();            // camera image + augmentations on the same canvas
    const t = r.targets[0];                           // state, found, corners (UL, UR, LR, LL), pose {R, t}
    // [frame]
    result.frames.push({ frame: i, state: t.state, found: t.found, corners: t.corners,
                         trackerMs: r.timingsMs.total, wallMs, timingsMs: r.timingsMs });
    if ((i + 1) % 30 === 0) console.log(`frame ${i + 1}/${testCase.frames.length}: ${t.state}`);
  }
  session.delete();
});
