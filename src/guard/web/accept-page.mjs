// The page side of `parity accept` for a browser declaration (src/guard/web_acceptance.cpp): the
// application's sample through parity-guard.mjs on the page's own onnxruntime-web, that one
// backend alone (`only`), exactly as a page using the module would run it. Tensors cross as raw
// bytes: inputs are fetched from the server's blobs, outputs POSTed to its upload slot. Returns
// what the guard decided (events, checks, tiles, times) and the outputs' names, types and dims.
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array,
};

function describeError(e) {
  return e && e.name === 'ParityGuardError'
      ? {kind: e.kind, stage: e.stage, backend: e.backend, message: e.message, hint: e.hint}
      : {kind: 'error', stage: 'none', backend: '', message: String(e && e.stack || e), hint: ''};
}

export async function accept(args) {
  const ort = await import(args.ortUrl);
  const {ParityGuard} = await import(args.guardUrl);
  const events = [];
  const reply = {events};  // every event onEvent saw, opening's and the run's, in order
  let session;
  try {
    session = await ParityGuard.open(ort, args.modelUrl, args.manifest,
                                     {only: args.label, baseUrl: args.baseUrl, cache: null,
                                      onEvent: e => events.push(e)});
  } catch (e) {
    reply.openError = describeError(e);
    return reply;
  }
  try {
    const feeds = {};
    for (const input of args.inputs) {
      const bytes = await (await fetch(input.url)).arrayBuffer();
      const Typed = ARRAYS[input.type];
      if (!Typed) throw new Error(`input '${input.name}' is ${input.type}, which this page cannot build`);
      feeds[input.name] = new ort.Tensor(input.type, new Typed(bytes), input.dims);
    }
    const r = await session.run(feeds);
    const names = Object.keys(r.outputs);
    reply.run = {backend: r.backend, tiles: r.tiles, tileBudgetPixels: r.tileBudgetPixels, checks: r.checks,
                 wallMs: r.wallMs, checksMs: r.checksMs, outputs: []};
    for (let i = 0; i < names.length; ++i) {
      const t = r.outputs[names[i]];
      const data = t.data;
      const body = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const posted = await fetch(`${args.upload}/${i}`, {method: 'POST', body});
      if (!posted.ok) throw new Error(`uploading output '${names[i]}' failed: HTTP ${posted.status}`);
      reply.run.outputs.push({name: names[i], type: t.type, dims: Array.from(t.dims)});
    }
  } catch (e) {
    reply.runError = describeError(e);
  }
  await session.release();
  return reply;
}
