// Loads one test page in headless Chromium (WebGL 1 through SwiftShader) and writes what the page
// reports. The browser is driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
// requests on file descriptor 3, answers on 4, each a JSON message ended by a NUL byte), so no
// port is opened besides the page server's. By default the page sets window.nftDone = true when
// finished and window.nftResult to what it found (--until and --result name other expressions,
// evaluated in the page); its console lines are echoed here.
//
//   node run_page.mjs --url URL --out result.json [--timeout 300] [--chromium /usr/bin/chromium]
//                     [--until 'window.nftDone === true'] [--result 'JSON.stringify(window.nftResult)']
//                     [--files 'SELECTOR=PATH[,SELECTOR=PATH...]' [--files-after EXPRESSION]]
// --files chooses files in the page's <input type="file"> elements, in order, as a user would
// (once --files-after holds, default at once).
//
// Exit status: 0 when the page finished (what it found is for the caller to judge), 1 when it
// threw, timed out or the browser failed. The browser is stopped by its process id in every case.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function parseArgs(argv) {
  const args = { timeout: 300, chromium: '/usr/bin/chromium', until: 'window.nftDone === true',
                 result: 'JSON.stringify(window.nftResult)', files: '', 'files-after': 'true' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!['url', 'out', 'timeout', 'chromium', 'until', 'result', 'files', 'files-after'].includes(key) ||
        argv[i + 1] === undefined) {
      console.error(`run_page: unknown or incomplete argument '${argv[i]}' (expected --url URL --out FILE [--timeout S] ` +
                    '[--chromium PATH] [--until EXPRESSION] [--result EXPRESSION] [--files SEL=PATH,...] [--files-after EXPR])');
      process.exit(2);
    }
    args[key] = argv[i + 1];
  }
  if (!args.url || !args.out) {
    console.error('run_page: --url and --out are required');
    process.exit(2);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const profile = mkdtempSync(join(tmpdir(), 'nft-chromium-'));
const browser = spawn(args.chromium, [
  '--headless=new', '--remote-debugging-pipe', '--no-first-run', '--no-default-browser-check',
  '--no-sandbox', '--disable-gpu-sandbox', '--disable-dev-shm-usage', `--user-data-dir=${profile}`,
  // WebGL 1 on the CPU: ANGLE over SwiftShader, as on a machine without a GPU.
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
  'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });  // its own process group
let browserLog = '';
browser.stderr.on('data', (d) => { browserLog = (browserLog + d).slice(-4000); });

// After the browser is stopped its pipes may report a reset: nothing is read from them then.
for (const stream of [browser.stdio[3], browser.stdio[4]]) stream.on('error', () => {});

let nextId = 1;
const pending = new Map();
const listeners = [];
let buffered = Buffer.alloc(0);
browser.stdio[4].on('data', (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
    const message = JSON.parse(buffered.subarray(0, end).toString('utf8'));
    buffered = buffered.subarray(end + 1);
    if (message.id !== undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`));
      else resolve(message.result);
    } else {
      for (const listener of listeners) listener(message);
    }
  }
});

function send(method, params = {}, sessionId = undefined) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  browser.stdio[3].write(JSON.stringify(message) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

let finished = false;
function stop(code) {
  if (finished) return;
  finished = true;
  // The browser and its helper processes (GPU, renderer) form one process group, stopped
  // together; the profile folder is removed once the browser has exited.
  const done = () => {
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.error(`run_page: could not remove the browser profile ${profile}: ${e.message}`);
    }
    process.exit(code);
  };
  try { process.kill(-browser.pid, 'SIGKILL'); } catch { /* already gone */ }
  if (browser.exitCode !== null || browser.signalCode !== null) return done();
  browser.once('exit', done);
}
browser.on('exit', (code, signal) => {
  if (!finished) {
    console.error(`run_page: Chromium exited early (${signal ?? code}); its last output:\n${browserLog}`);
    stop(1);
  }
});
let lastSeen = '';  // the --result expression's latest value, shown if the page never finishes
const timer = setTimeout(() => {
  console.error(`run_page: the page did not finish within ${args.timeout} s; it last showed: ${lastSeen}`);
  stop(1);
}, Number(args.timeout) * 1000);

try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  let pageError = null;
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === 'Runtime.consoleAPICalled') {
      console.log('[page] ' + m.params.args.map((a) => a.value ?? a.description ?? '').join(' '));
    } else if (m.method === 'Runtime.exceptionThrown') {
      const d = m.params.exceptionDetails;
      pageError = (d.exception && d.exception.description) || d.text;
      console.error('[page] uncaught: ' + pageError);
    }
  });
  await send('Runtime.enable', {}, sessionId);
  await send('Page.enable', {}, sessionId);
  await send('Page.navigate', { url: args.url }, sessionId);
  const evaluate = async (expression) =>
    (await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
  if (args.files) {
    while (!(await evaluate(`document.readyState === 'complete' && Boolean(${args['files-after']})`))) {
      if (pageError) throw new Error('the page threw: ' + pageError);
      await new Promise((r) => setTimeout(r, 250));
    }
    await send('DOM.enable', {}, sessionId);
    for (const choice of args.files.split(',')) {
      const [selector, path] = choice.split('=');
      const { root } = await send('DOM.getDocument', {}, sessionId);
      const { nodeId } = await send('DOM.querySelector', { nodeId: root.nodeId, selector }, sessionId);
      if (!nodeId) throw new Error(`no element '${selector}' in the page for --files`);
      await send('DOM.setFileInputFiles', { nodeId, files: [path] }, sessionId);
    }
  }
  for (;;) {
    const { result } = await send('Runtime.evaluate', { expression: `Boolean(${args.until})`, returnByValue: true }, sessionId);
    if (result.value === true) break;
    if (pageError) throw new Error('the page threw: ' + pageError);
    lastSeen = String(await evaluate(args.result)).slice(0, 500);
    await new Promise((r) => setTimeout(r, 250));
  }
  const { result } = await send('Runtime.evaluate',
    { expression: args.result, returnByValue: true }, sessionId);
  writeFileSync(args.out, result.value ?? 'null');
  clearTimeout(timer);
  stop(0);
} catch (e) {
  console.error('run_page: ' + e.message);
  clearTimeout(timer);
  stop(1);
}
