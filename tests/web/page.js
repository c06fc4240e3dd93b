// What the test pages share (tests/web/*.html, run by tests/web/run_page.mjs).

/** A frame or target image fetched from the test site, as an ImageBitmap without colour changes. */
export async function bitmap(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
  return createImageBitmap(await r.blob(), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
}

/**
 * Runs a page's test: `body(result)` fills `result`; what it throws is kept in result.error (and
 * echoed); then the result is handed to run_page.mjs (window.nftResult, window.nftDone).
 */
export async function runTestPage(result, body) {
  try {
    await body(result);
  } catch (e) {
    result.error = String(e && e.stack || e);
    console.log('error: ' + result.error);
  }
  window.nftResult = result;
  window.nftDone = true;
}
