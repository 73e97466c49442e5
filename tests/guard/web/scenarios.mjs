// The web guard's scenarios, driven by tests/guard/web_guard_test.cpp in headless Chromium: each
// opens a ParityGuard session on the page's own onnxruntime-web and returns what a test checks
// (events, the backend that served, the checks, and the output's distance from a plain wasm run).
export async function run(args) {
  const ort = await import(args.ortUrl);
  const {ParityGuard, ParityGuardError} = await import(args.guardUrl);
  ort.env.wasm.numThreads = 1;
  const summary = {};
  const events = [];
  let session;
  try {
    session = await ParityGuard.open(ort, args.modelsUrl + args.model, args.manifest,
                                     {...args.options, cache: null, onEvent: e => events.push(e)});
  } catch (e) {
    summary.error = e instanceof ParityGuardError ? {kind: e.kind, stage: e.stage, message: e.message} : {message: String(e)};
    summary.events = events;
    return summary;
  }
  summary.openEvents = session.openEvents;
  summary.backend = session.backend;
  const [h, w] = args.size;
  const data = new Float32Array(3 * h * w);
  let s = 7;
  for (let i = 0; i < data.length; ++i) data[i] = ((s = (s * 1103515245 + 12345) >>> 0) % 10000) / 10000;
  const x = new ort.Tensor('float32', data, [1, 3, h, w]);
  try {
    const r = await session.run({x});
    summary.run = {backend: r.backend, tiles: r.tiles, checks: r.checks, events: r.events,
                   dims: Array.from(r.outputs.y.dims)};
    // The same input on a plain wasm session: what a correct output is.
    const bytes = new Uint8Array(await (await fetch(args.modelsUrl + args.model)).arrayBuffer());
    const plain = await ort.InferenceSession.create(bytes, {executionProviders: ['wasm']});
    const want = (await plain.run({x: new ort.Tensor('float32', data, [1, 3, h, w])})).y.data;
    const got = r.outputs.y.data;
    let diff = want.length === got.length ? 0 : Infinity;
    for (let i = 0; i < want.length && diff !== Infinity; ++i) diff = Math.max(diff, Math.abs(want[i] - got[i]));
    summary.maxDiffVsWasm = diff;
  } catch (e) {
    summary.runError = e instanceof ParityGuardError ? {kind: e.kind, stage: e.stage, message: e.message} : {message: String(e)};
  }
  await session.release();
  return summary;
}
