// The recognition client in the browser (issue 48, item 3 in JavaScript), against the real service
// on another origin (so CORS too), with a Session that has no target of its own:
//   tracked:     the case's frames through SessionRecognition.process(), waiting for each request to
//                settle before the next frame (so the frame the target is added at is the same on
//                every run): requests made, the frames found and their corners;
//   rateLimit:   blank frames (nothing found) with minIntervalMs far away: one request only;
//   wrongToken:  a client with another token: its 401 kept in errors, not thrown, nothing added;
//   unreachable: a port where nothing listens: a RecognitionError of status 0, kept;
//   badModel:    Session.addTargetModel of three bytes: the NftError's message.
import { loadNft } from './nft/nft.js';
import { bitmap, runTestPage } from './page.js';
import { RecognitionClient, SessionRecognition } from './nft/recognition.js';

const described = (errors) => errors.map((e) => ({ name: e.name, status: e.status ?? null, message: e.message }));

runTestPage({}, async (result) => {
  const params = new URLSearchParams(location.search);
  const service = params.get('service');
  const token = params.get('token');
  const testCase = await (await fetch(params.get('case'))).json();
  const frames = testCase.frames.slice(0, Number(params.get('frames') || 30));
  const first = await bitmap(frames[0]);
  const canvas = document.getElementById('view');
  canvas.width = first.width;
  canvas.height = first.height;
  const nft = await loadNft();
  const session = nft.createSession(canvas, testCase.config || {});

  const wrong = new SessionRecognition(session, new RecognitionClient(service, { token: 'not-the-token' }),
                                       { minIntervalMs: 0 });
  wrong.process(first, 0);
  await wrong.idle();
  wrong.process(first, 1);  // an answer would be added here
  await wrong.idle();
  result.wrongToken = { requests: wrong.requests, errors: described(wrong.errors), added: wrong.added.size,
                        targets: session.info().targets.length };

  const away = new SessionRecognition(session, new RecognitionClient('http://127.0.0.1:9', { timeoutMs: 5000 }));
  away.process(first, 2);
  await away.idle();
  result.unreachable = { requests: away.requests, errors: described(away.errors) };

  try {
    session.addTargetModel(new Uint8Array([1, 2, 3]), { name: 'garbage' });
    result.badModel = 'accepted';
  } catch (e) {
    result.badModel = e.name + ': ' + e.message;
  }

  // [recognition]
  const client = new RecognitionClient(service, { token });
  const recognition = new SessionRecognition(session, client, { minIntervalMs: 0 });
  result.frames = [];
  for (let i = 0; i < frames.length; ++i) {
    const frame = i === 0 ? first : await bitmap(frames[i]);
    const r = recognition.process(frame, 100 + i * 1000 / 30);  // session.process(), the service when nothing is found
    // [recognition]
    const t = r.targets.find((target) => target.found);
    result.frames.push({ frame: i, found: Boolean(t), name: t ? t.name : null, corners: t ? t.corners : null,
                         pending: recognition.pending });
    await recognition.idle();
  }
  result.tracked = { requests: recognition.requests, errors: described(recognition.errors),
                     added: [...recognition.added.entries()], targets: session.info().targets.map((t) => t.name) };

  const blank = new ImageData(first.width, first.height);  // all zero: nothing to find
  const limited = new SessionRecognition(session, client, { minIntervalMs: 1e9 });
  for (let i = 0; i < 5; ++i) limited.process(blank, 10000 + i * 33);
  await limited.idle();
  result.rateLimit = { requests: limited.requests, errors: described(limited.errors), added: limited.added.size };
  session.delete();
});
