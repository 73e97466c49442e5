// parity-guard.mjs: the guard runtime for onnxruntime-web pages (docs/guard.md), the browser twin
// of include/parity/guard.h. It reads the same capability manifest (its JSON form) and does the
// same things: a backend chain with refusals, preflight before trust, self-checks on every output,
// tiled retries, fallback, and every decision as an event.
//
//   import * as ort from './ort.webgpu.bundle.min.mjs';
//   import {ParityGuard} from './parity-guard.mjs';
//   const manifest = await (await fetch('caps.json')).json();
//   const session = await ParityGuard.open(ort, 'model.onnx', manifest,
//                                          {force: new URLSearchParams(location.search).get('backend')});
//   const out = await session.run({x: tensor});   // throws a ParityGuardError with kind/stage/hint
//
// The page brings its own onnxruntime-web: web-wasm declarations run on its 'wasm' provider,
// web-webgpu and web-jsep on its 'webgpu' provider (which path that is depends on the bundle the
// page imported: ort.webgpu.bundle is the native WebGPU EP, ort.bundle is JSEP). Native
// declarations (cpu, webgpu, cuda, ...) are for the C++ guard and are skipped here.
//
// No dependency besides the page's `ort`. Works in any secure context (crypto.subtle, WebGPU).

const SCHEMA = 'parity.manifest/1';
const CACHE_KEY = 'parity.preflight/1';
const PROVIDER = {'web-wasm': 'wasm', 'web-webgpu': 'webgpu', 'web-jsep': 'webgpu'};

export class ParityGuardError extends Error {
  // kind: error | timeout | oom | unavailable | bad_input | internal (parity/error.h's names);
  // stage: load-model | create-session | run | read-output | ...; events: what was decided.
  constructor({kind = 'error', stage = 'none', backend = '', message = '', hint = '', events = []} = {}) {
    super(message);
    this.name = 'ParityGuardError';
    Object.assign(this, {kind, stage, backend, hint, events});
  }
  describe() {
    return `${this.backend ? this.backend + ': ' : ''}${this.stage}: ${this.kind}: ${this.message}` +
           (this.hint ? ` (hint: ${this.hint})` : '');
  }
}

// The adapter's limits against what the declared file needs (guard/preflight.h's adapter_shortfall):
// its largest weight in one buffer; on JSEP, which binds each tensor whole, in one binding too.
function adapterShortfall(d, limits) {
  const need = Number(d.largest_weight_bytes || 0);
  const mib = n => `${Math.round(n / 1048576)} MiB`;
  for (const name of ['maxBufferSize', 'maxStorageBufferBindingSize']) {
    if (name === 'maxStorageBufferBindingSize' && d.ep !== 'web-jsep') continue;
    const have = Number(limits[name] || 0);
    if (need > 0 && have > 0 && need > have)
      return `the adapter's ${name} is ${mib(have)}, below the ${mib(need)} the file's largest weight needs`;
  }
  return '';
}

// --- judging (the rules of parity/metrics.h, for the preflight) ----------------------------------

// The default tolerance a file of `precision` is judged by (probe/precision.h).
function toleranceFor(precision) {
  const f32 = {atol: 1e-4, rtol: 1e-3, scale: 1e-4};
  const loose = {
    fp16: {atol: 1e-2, rtol: 1e-2, scale: 2e-3},
    bf16: {atol: 5e-2, rtol: 5e-2, scale: 1e-2},
  };
  const quantized = ['int8', 'uint8', 'quint8', 'qint8', 'int4', 'uint4', 'q4'];
  const t = loose[precision] || (quantized.includes(precision) ? loose.bf16 : f32);
  return {
    ...t,
    minCosine: precision && precision !== 'fp32' ? 0.99 : null,
    driftCosine: precision === 'fp16' ? 0.9999 : precision === 'bf16' ? 0.999 : null,
  };
}

function compare(actual, expected, tol) {
  const n = expected.length;
  let refMax = 0;
  for (let i = 0; i < n; ++i) if (Number.isFinite(expected[i])) refMax = Math.max(refMax, Math.abs(expected[i]));
  const bound = Math.max(tol.atol, tol.scale * refMax);
  let over = 0, maxAbs = 0, dot = 0, na = 0, ne = 0;
  for (let i = 0; i < n; ++i) {
    const a = Number(actual[i]), e = Number(expected[i]);
    if (!Number.isFinite(a) || !Number.isFinite(e)) {
      if (!(Object.is(a, e) || (Number.isNaN(a) && Number.isNaN(e)))) ++over;
      continue;
    }
    const d = Math.abs(a - e);
    maxAbs = Math.max(maxAbs, d);
    if (d > bound + tol.rtol * Math.abs(e)) ++over;
    dot += a * e, na += a * a, ne += e * e;
  }
  const cosine = na > 0 && ne > 0 ? dot / Math.sqrt(na * ne) : (na === ne ? 1 : 0);
  return {over, maxAbs, cosine, n, bound};
}

function judge(actualOutputs, expectedOutputs, precision) {
  const tol = toleranceFor(precision);
  let worstAbs = 0, worstCos = 1;
  for (const [name, e] of Object.entries(expectedOutputs)) {
    const a = actualOutputs[name];
    if (!a) return {passed: false, detail: `output '${name}': missing`};
    if (a.dims.join(',') !== e.dims.join(','))
      return {passed: false, detail: `output '${name}': shape [${a.dims}] instead of [${e.dims}]`};
    const c = compare(a.data, e.data, tol);
    const driftOk = tol.driftCosine !== null && c.cosine >= tol.driftCosine;
    if ((c.over > 0 && !driftOk) || (tol.minCosine !== null && c.cosine < tol.minCosine))
      return {passed: false,
              detail: `output '${name}': ${c.over} of ${c.n} elements exceed atol ${tol.atol} + rtol ` +
                      `${tol.rtol}*|ref|; max_abs ${c.maxAbs.toPrecision(6)}, cosine ${c.cosine.toFixed(6)}`};
    worstAbs = Math.max(worstAbs, c.maxAbs);
    worstCos = Math.min(worstCos, c.cosine);
  }
  return {passed: true, detail: `${Object.keys(expectedOutputs).length} output(s) match the reference ` +
                                `(max_abs ${worstAbs.toPrecision(3)}, cosine ${worstCos.toFixed(6)})`};
}

// --- self-checks (guard/self_checks.h) -------------------------------------------------------------

function imageOf(tensors, name) {
  for (const [n, t] of Object.entries(tensors))
    if ((!name || n === name) && t.dims.length === 4 && t.type === 'float32') return {name: n, t};
  return null;
}

function channelMeans(t) {
  const [b, c, h, w] = t.dims, plane = h * w, sums = new Float64Array(c);
  for (let i = 0; i < t.data.length; ++i) {
    const v = t.data[i];
    if (Number.isFinite(v)) sums[Math.floor(i / plane) % c] += v;
  }
  return Array.from(sums, s => s / Math.max(1, b * plane));
}

export function runChecks(checks, inputs, outputs) {
  const c = {finite: true, grid: 4, ...checks};
  const results = [];
  if (c.finite) {
    const r = {check: 'finite', passed: true, detail: 'every float output is finite'};
    for (const [name, t] of Object.entries(outputs)) {
      if (t.type !== 'float32') continue;
      let bad = 0;
      for (let i = 0; i < t.data.length; ++i) if (!Number.isFinite(t.data[i])) ++bad;
      if (bad && r.passed) Object.assign(r, {passed: false, detail: `output '${name}' has ${bad} NaN/Inf of ${t.data.length} elements`});
    }
    results.push(r);
  }
  const wantsImage = c.mean_shift !== undefined || c.range !== undefined || c.max_zero_fraction !== undefined ||
                     c.scale !== undefined;
  if (!wantsImage) return results;
  const input = imageOf(inputs, c.input), output = imageOf(outputs, c.output);
  if (!output || (!input && (c.mean_shift !== undefined || c.scale !== undefined))) {
    results.push({check: 'image', passed: false, detail: `the image checks need an NCHW float32 ${output ? 'input' : 'output'}; none found`});
    return results;
  }
  const [, , oh, ow] = output.t.dims;
  if (c.scale !== undefined) {
    const [, , ih, iw] = input.t.dims;
    results.push({check: 'scale', passed: oh === ih * c.scale && ow === iw * c.scale,
                  detail: `output ${oh}x${ow} for input ${ih}x${iw} (x${c.scale} expected)`});
  }
  if (c.mean_shift !== undefined) {
    const mi = channelMeans(input.t), mo = channelMeans(output.t);
    const mean = a => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
    let r = null;
    if (c.per_channel && mi.length === mo.length) {
      for (let k = 0; k < mi.length && !r; ++k)
        if (Math.abs(mo[k] - mi[k]) > c.mean_shift)
          r = {check: 'mean_shift', passed: false,
               detail: `channel ${k}: mean ${mo[k].toPrecision(4)} vs input ${mi[k].toPrecision(4)}, shift ${Math.abs(mo[k] - mi[k]).toPrecision(3)} > ${c.mean_shift}`};
      r = r || {check: 'mean_shift', passed: true, detail: `every channel's mean within ${c.mean_shift} of the input's`};
    } else {
      const shift = Math.abs(mean(mo) - mean(mi));
      r = {check: 'mean_shift', passed: shift <= c.mean_shift,
           detail: `mean ${mean(mo).toPrecision(4)} vs input ${mean(mi).toPrecision(4)}: shift ${shift.toPrecision(3)}`};
    }
    results.push(r);
  }
  if (c.range !== undefined || c.max_zero_fraction !== undefined) {
    const g = Math.max(1, c.grid), plane = oh * ow, zeros = new Float64Array(g * g), cells = new Float64Array(g * g);
    let lo = Infinity, hi = -Infinity;
    const d = output.t.data;
    for (let i = 0; i < d.length; ++i) {
      const v = d[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      const p = i % plane, cell = Math.floor(Math.floor(p / ow) * g / oh) * g + Math.floor((p % ow) * g / ow);
      cells[cell] += 1;
      if (v === 0) zeros[cell] += 1;
    }
    if (c.range !== undefined)
      results.push({check: 'range', passed: d.length === 0 || (lo >= c.range[0] && hi <= c.range[1]),
                    detail: `values in [${lo.toPrecision(4)}, ${hi.toPrecision(4)}], allowed [${c.range[0]}, ${c.range[1]}]`});
    if (c.max_zero_fraction !== undefined) {
      let worst = 0, at = 0;
      for (let k = 0; k < cells.length; ++k) {
        const f = cells[k] ? zeros[k] / cells[k] : 0;
        if (f > worst) worst = f, at = k;
      }
      results.push({check: 'zero_fraction', passed: worst <= c.max_zero_fraction,
                    detail: `worst grid cell (row ${Math.floor(at / g)}, col ${at % g} of ${g}x${g}) is ` +
                            `${(100 * worst).toFixed(1)}% zeros, ceiling ${(100 * c.max_zero_fraction).toFixed(1)}%`});
    }
  }
  return results;
}

// --- tiling (guard/tiling.h) -----------------------------------------------------------------------

export function planTiles(height, width, budget, overlap) {
  const side = Math.floor(Math.sqrt(Math.max(1, budget)));
  const core = Math.max(side - 2 * overlap, 8, overlap);
  const rows = Math.ceil(height / core), cols = Math.ceil(width / core);
  const ch = Math.ceil(height / rows), cw = Math.ceil(width / cols);
  const tiles = [];
  for (let r = 0; r < rows; ++r)
    for (let c = 0; c < cols; ++c) {
      const y0 = r * ch, y1 = Math.min(height, y0 + ch), x0 = c * cw, x1 = Math.min(width, x0 + cw);
      if (y0 < y1 && x0 < x1)
        tiles.push({y0, y1, x0, x1, cy0: Math.max(0, y0 - overlap), cy1: Math.min(height, y1 + overlap),
                    cx0: Math.max(0, x0 - overlap), cx1: Math.min(width, x1 + overlap)});
    }
  return {height, width, overlap, rows, cols, tiles, budget};
}

function crop(t, y0, y1, x0, x1) {
  const [n, c, h, w] = t.dims, th = y1 - y0, tw = x1 - x0, out = new Float32Array(n * c * th * tw);
  for (let p = 0; p < n * c; ++p)
    for (let y = 0; y < th; ++y)
      out.set(t.data.subarray((p * h + y0 + y) * w + x0, (p * h + y0 + y) * w + x1), (p * th + y) * tw);
  return {type: 'float32', dims: [n, c, th, tw], data: out};
}

function axisWeight(v, lo, hi, extent, band) {
  if (band <= 0) return v >= lo && v < hi ? 1 : 0;
  let w = 1;
  if (lo > 0) w = Math.min(w, Math.min(1, Math.max(0, (v - (lo - band)) / (2 * band))));
  if (hi < extent) w = Math.min(w, Math.min(1, Math.max(0, ((hi + band) - v) / (2 * band))));
  return w;
}

function badInput(message, hint = 'only fully convolutional image-to-image models can be tiled') {
  return new ParityGuardError({kind: 'bad_input', stage: 'run', message, hint});
}

async function runTiled(inputs, imageName, grid, run) {
  const image = inputs[imageName];
  const canvases = [];
  for (const tile of grid.tiles) {
    const feeds = {...inputs, [imageName]: crop(image, tile.cy0, tile.cy1, tile.cx0, tile.cx1)};
    const outputs = await run(feeds);
    const th = tile.cy1 - tile.cy0, tw = tile.cx1 - tile.cx0;
    if (!canvases.length)
      for (const [name, o] of Object.entries(outputs)) {
        if (o.dims.length !== 4 || o.type !== 'float32' || o.dims[2] % th || o.dims[3] % tw || !o.dims[2])
          throw badInput(`output '${name}' is [${o.dims}] for a ${th}x${tw} tile: not an NCHW float32 image at an integer scale`);
        const sh = o.dims[2] / th, sw = o.dims[3] / tw, H = grid.height * sh, W = grid.width * sw;
        canvases.push({name, sh, sw, n: o.dims[0], c: o.dims[1], H, W,
                       sum: new Float32Array(o.dims[0] * o.dims[1] * H * W), weight: new Float32Array(H * W)});
      }
    for (const cv of canvases) {
      const o = outputs[cv.name];
      if (!o || o.dims[2] !== th * cv.sh || o.dims[3] !== tw * cv.sw)
        throw badInput(`output '${cv.name}' of a ${th}x${tw} tile is not the image at one integer scale`);
      const oh = o.dims[2], ow = o.dims[3], band = grid.overlap / 2;
      for (let y = 0; y < oh; ++y) {
        const Y = tile.cy0 * cv.sh + y;
        const wy = axisWeight((Y + 0.5) / cv.sh, tile.y0, tile.y1, grid.height, band);
        if (wy <= 0) continue;
        for (let x = 0; x < ow; ++x) {
          const X = tile.cx0 * cv.sw + x;
          const wx = axisWeight((X + 0.5) / cv.sw, tile.x0, tile.x1, grid.width, band);
          if (wx <= 0) continue;
          const wgt = wy * wx;
          cv.weight[Y * cv.W + X] += wgt;
          for (let p = 0; p < cv.n * cv.c; ++p) cv.sum[(p * cv.H + Y) * cv.W + X] += wgt * o.data[(p * oh + y) * ow + x];
        }
      }
    }
  }
  const result = {};
  for (const cv of canvases) {
    const plane = cv.H * cv.W;
    for (let i = 0; i < cv.sum.length; ++i) {
      const w = cv.weight[i % plane];
      if (w > 0) cv.sum[i] /= w;
    }
    result[cv.name] = {type: 'float32', dims: [cv.n, cv.c, cv.H, cv.W], data: cv.sum};
  }
  return result;
}

// --- the session ---------------------------------------------------------------------------------

function classify(e, stage, backend) {
  if (e instanceof ParityGuardError) return e;
  if (typeof e === 'number' || typeof e === 'bigint')
    return new ParityGuardError({kind: 'error', stage, backend,
                                 message: `onnxruntime-web threw ${e}: an uncaught exception inside its wasm module`,
                                 hint: 'run the model with parity probe -b web-wasm to see ORT\'s own message'});
  const message = e && e.message !== undefined ? String(e.message) : String(e);
  let kind = 'error';
  if (/adapter|navigator\.gpu|WebGPU is not supported/i.test(message)) kind = 'unavailable';
  else if (/out of memory|allocation failed|RangeError: Array buffer|Maximum call stack/i.test(message)) kind = 'oom';
  const hint = kind === 'unavailable' ? 'this browser or device gives no usable WebGPU adapter' :
               kind === 'oom' ? 'the input is too large for this backend here: tiles or a smaller size may run' : '';
  return new ParityGuardError({kind, stage, backend, message, hint});
}

const retryable = e => !['bad_input', 'unavailable', 'io', 'interrupted'].includes(e.kind);

function toPlain(t) {  // an ort.Tensor (or a plain {type, dims, data}) as a plain tensor
  return {type: t.type, dims: Array.from(t.dims), data: t.data};
}

function pixelsOf(size) {
  const m = /^[^=]+=(\d+)x(\d+)$/.exec(size || '');
  return m ? Number(m[1]) * Number(m[2]) : 0;
}

// An image file as NCHW float32 RGB in [0, 1], resized to [height, width] when given (the page's
// own filter: the preflight compares two backends on the same decoded pixels, so only this page
// has to agree with itself). null when it cannot be fetched or decoded here.
async function loadImage(url, [height, width] = []) {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') return null;
  try {
    const response = await fetch(url);
    if (!response.ok) return null;
    const bitmap = await createImageBitmap(await response.blob());
    const h = Number(height) || bitmap.height, w = Number(width) || bitmap.width;
    const context = new OffscreenCanvas(w, h).getContext('2d');
    context.drawImage(bitmap, 0, 0, w, h);
    const rgba = context.getImageData(0, 0, w, h).data;
    const data = new Float32Array(3 * w * h);
    for (let i = 0; i < w * h; ++i)
      for (let c = 0; c < 3; ++c) data[c * w * h + i] = rgba[4 * i + c] / 255;
    return {type: 'float32', dims: [1, 3, h, w], data};
  } catch (e) {
    return null;
  }
}

// A seeded generator (mulberry32): the preflight sample is the same on every page load.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function memoryCache() {
  const m = new Map();
  return {getItem: k => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v))};
}

async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), b => b.toString(16).padStart(2, '0')).join('');
}

class GuardedSession {
  constructor(ort, manifest, options) {
    this.ort = ort;
    this.manifest = manifest;
    this.options = options;
    this.settings = {order: [], retries: 2, overlap: 16, preflight: true, ...(manifest.guard || {})};
    this.openEvents = [];
    this.reasons = [];
    this.chain = [];
    this.next = 0;
    this.active = null;
    this.references = new Map();  // file URL -> wasm session, for preflight
    this.queue = Promise.resolve();  // runs of one onnxruntime-web session do not overlap
    this.cache = options.cache === undefined ? (globalThis.localStorage || memoryCache()) : options.cache;
  }

  get backend() { return this.active ? this.active.label : ''; }

  emit(log, kind, backend, message, error) {
    const e = {kind, backend, message};
    if (error) e.error = {kind: error.kind, stage: error.stage, message: error.message, hint: error.hint};
    if (this.options.onEvent) this.options.onEvent(e);
    log.push(e);
  }

  declaration(label) { return (this.manifest.backends || {})[label] ? {label, ...this.manifest.backends[label]} : null; }

  order(log) {
    const all = Object.keys(this.manifest.backends || {}).map(l => this.declaration(l));
    const out = [];
    const add = d => { if (d && !out.some(o => o.label === d.label)) out.push(d); };
    const asked = this.options.only || this.options.force;
    if (asked) {
      const d = this.declaration(asked);
      if (!d || !d.enabled) {
        const why = d ? `declared unfit: ${d.reason}` : 'the manifest declares no such backend';
        this.emit(log, 'refused', asked, (this.options.only ? '' : 'forced, but ') + why);
        this.reasons.push(`${asked}: ${why}`);
      } else {
        add(d);
      }
      if (this.options.only) return out;
    }
    if (this.settings.order.length) for (const l of this.settings.order) add(this.declaration(l));
    else for (const cpu of [false, true]) for (const d of all) if ((d.ep === 'web-wasm') === cpu) add(d);
    return out;
  }

  buildChain(log) {
    for (const d of this.order(log)) {
      if (!d.enabled) {
        if (d.label !== this.options.force) this.emit(log, 'skipped', d.label, `declared unfit: ${d.reason}`);
        continue;
      }
      if (!PROVIDER[d.ep]) {
        this.emit(log, 'skipped', d.label, 'a native backend: the C++ guard (parity/guard.h) runs it');
        continue;
      }
      this.chain.push(d);
    }
  }

  url(file) { return new URL(file, this.options.baseUrl).href; }

  // Creates an onnxruntime-web session for declaration `d` on `bytes`; typed errors.
  async createSession(d, bytes, provider) {
    const stage = 'create-session';
    let adapter = '';
    if (provider === 'webgpu') {
      const gpu = globalThis.navigator && navigator.gpu;
      const a = gpu ? await gpu.requestAdapter() : null;
      if (!a) throw new ParityGuardError({kind: 'unavailable', stage: 'append-provider', backend: d.label,
                                          message: gpu ? 'navigator.gpu.requestAdapter() gave no adapter' : 'this browser has no navigator.gpu',
                                          hint: 'no usable WebGPU adapter here (driver, blocklist or flags)'});
      const info = a.info || {};
      adapter = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'webgpu';
      const shortfall = adapterShortfall(d, a.limits || {});
      if (shortfall)
        throw new ParityGuardError({kind: 'unavailable', stage: 'append-provider', backend: d.label,
                                    message: `${shortfall} (${adapter})`,
                                    hint: 'declare a smaller variant for this backend, or fall back'});
      if (d.precision === 'fp16' && !a.features.has('shader-f16'))
        throw new ParityGuardError({kind: 'unavailable', stage: 'append-provider', backend: d.label,
                                    message: `the adapter (${adapter}) lacks shader-f16, which this fp16 file needs`,
                                    hint: 'declare an fp32 variant for this backend, or fall back'});
    }
    const options = {executionProviders: [provider], graphOptimizationLevel: d.graph_optimization || 'all',
                     ...(this.options.sessionOptions || {})};
    try {
      const session = await this.ort.InferenceSession.create(bytes, options);
      return {session, adapter};
    } catch (e) {
      throw classify(e, stage, d.label);
    }
  }

  async runOn(session, feeds, label) {
    const job = this.queue.then(async () => {
      const ortFeeds = {};
      for (const [name, t] of Object.entries(feeds))
        ortFeeds[name] = t instanceof this.ort.Tensor ? t : new this.ort.Tensor(t.type, t.data, t.dims);
      let results;
      try {
        results = await session.run(ortFeeds);
      } catch (e) {
        throw classify(e, 'run', label);
      }
      const out = {};
      for (const [name, t] of Object.entries(results)) {
        try {
          out[name] = toPlain(t.location && t.location !== 'cpu' ? {type: t.type, dims: t.dims, data: await t.getData(true)} : t);
        } catch (e) {
          throw classify(e, 'read-output', label);
        }
      }
      return out;
    });
    this.queue = job.catch(() => {});
    return job;
  }

  // The preflight sample: the sweep's seeded inputs (its shapes and ranges) and its image files,
  // decoded and resized in the page as the sweep resized them, at the declaration's proven size.
  // null when an input has neither (the check is then skipped, and says so).
  async sample(d, inputNames) {
    const inputs = (this.manifest.sweep && this.manifest.sweep.inputs) || {};
    const next = random(Number(inputs.seed || 0) + 1);
    const size = /^([^=]+)=(\d+)x(\d+)$/.exec((d.evidence && d.evidence.size) || '');
    const feeds = {};
    for (const name of inputNames) {
      const sized = size && size[1] === name ? [Number(size[2]), Number(size[3])] : null;
      const file = inputs.files && inputs.files[name];
      if (file) {
        const image = await loadImage(this.url(file), sized || (inputs.resize && inputs.resize[name]) || []);
        if (!image) return null;
        feeds[name] = image;
        continue;
      }
      const dims = ((inputs.shapes || {})[name] || []).slice();
      if (!dims.length) return null;
      if (sized) dims.splice(dims.length - 2, 2, sized[0], sized[1]);
      const [lo, hi] = (inputs.ranges && inputs.ranges[name]) || [-1, 1];
      const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
      for (let i = 0; i < data.length; ++i) data[i] = lo + (hi - lo) * next();
      feeds[name] = {type: 'float32', dims, data};
    }
    return feeds;
  }

  // The known-answer check of `d` on `session`: true when trusted.
  async preflight(d, session, sha, adapter, bytes, log) {
    if (!this.settings.preflight) return true;
    if (d.ep === 'web-wasm') {
      this.emit(log, 'preflight-skipped', d.label, 'the reference backend (wasm) itself: nothing to check it against');
      return true;
    }
    const versions = (this.ort.env && this.ort.env.versions) || {};
    const key = [d.label, d.ep, d.graph_optimization, sha, versions.web || versions.common || '', adapter].join('|');
    let cached = {};
    try { cached = JSON.parse(this.cache && this.cache.getItem(CACHE_KEY) || '{}'); } catch (e) { cached = {}; }
    if (cached[key]) {
      this.emit(log, cached[key].passed ? 'preflight-passed' : 'preflight-failed', d.label, `cached: ${cached[key].detail}`);
      return cached[key].passed;
    }
    const feeds = await this.sample(d, session.inputNames);
    if (!feeds) {
      this.emit(log, 'preflight-skipped', d.label, 'the manifest records no sample the page can build ([sweep.inputs] shapes, or image files)');
      return true;
    }
    const actual = await this.runOn(session, feeds, d.label);
    let reference = this.references.get(d.file);
    if (!reference) {
      reference = (await this.createSession({...d, label: 'reference', precision: 'fp32'}, bytes, 'wasm')).session;
      this.references.set(d.file, reference);
    }
    const expected = await this.runOn(reference, feeds, 'reference');
    const verdict = judge(actual, expected, d.precision);
    cached[key] = {...verdict, checked: new Date().toISOString()};
    try { if (this.cache) this.cache.setItem(CACHE_KEY, JSON.stringify(cached)); } catch (e) { /* a cache only */ }
    this.emit(log, verdict.passed ? 'preflight-passed' : 'preflight-failed', d.label, verdict.detail);
    return verdict.passed;
  }

  async advance(log) {
    if (this.active) { try { await this.active.session.release(); } catch (e) { /* already gone */ } }
    this.active = null;
    while (this.next < this.chain.length) {
      const d = this.chain[this.next++];
      const giveUp = (kind, why, error) => { this.emit(log, kind, d.label, why, error); this.reasons.push(`${d.label}: ${why}`); };
      let bytes, sha;
      try {
        const response = await fetch(this.url(d.file));
        if (!response.ok) throw new Error(`HTTP ${response.status} for ${this.url(d.file)}`);
        bytes = new Uint8Array(await response.arrayBuffer());
        sha = await sha256Hex(bytes);
      } catch (e) {
        const err = new ParityGuardError({kind: 'io', stage: 'load-model', backend: d.label, message: String(e.message || e)});
        giveUp('open-failed', err.message, err);
        continue;
      }
      if (d.sha256 && sha !== d.sha256) {
        giveUp('open-failed', `${d.file} changed since the sweep proved it (sha256 differs from the declaration's)`);
        continue;
      }
      let opened;
      try {
        opened = await this.createSession(d, bytes, PROVIDER[d.ep]);
      } catch (e) {
        const err = classify(e, 'create-session', d.label);
        giveUp('open-failed', err.describe(), err);
        continue;
      }
      let trusted;
      try {
        trusted = await this.preflight(d, opened.session, sha, opened.adapter, bytes, log);
      } catch (e) {
        const err = classify(e, 'run', d.label);
        giveUp('open-failed', `preflight could not run: ${err.describe()}`, err);
        try { await opened.session.release(); } catch (x) { /* gone */ }
        continue;
      }
      if (!trusted) {
        this.reasons.push(`${d.label}: preflight failed`);
        try { await opened.session.release(); } catch (x) { /* gone */ }
        continue;
      }
      const checks = d.checks || this.manifest.checks || {};
      this.active = {label: d.label, session: opened.session, checks, budget: pixelsOf(d.size_budget)};
      this.emit(log, 'selected', d.label, `${d.file} on ${PROVIDER[d.ep]}${opened.adapter ? ' (' + opened.adapter + ')' : ''}`);
      return;
    }
  }

  exhausted(events) {
    return new ParityGuardError({kind: 'unavailable', stage: 'create-session',
                                 message: 'no backend of the manifest can run this model safely here:' +
                                          (this.reasons.length ? this.reasons.map(r => '\n  ' + r).join('') : '\n  (the manifest enables no browser backend)'),
                                 hint: 'see each backend\'s reason; docs/guard.md explains the chain', events});
  }

  async runActive(a, inputs, log) {
    const out = {backend: a.label, tiles: 1, tileBudgetPixels: 0, checks: [], checksMs: 0};
    const image = imageOf(inputs, a.checks.input);
    const pixels = image ? image.t.dims[2] * image.t.dims[3] : 0;
    let budget = a.budget > 0 && pixels > a.budget ? a.budget : 0;
    let retries = this.settings.retries;
    const run = feeds => this.runOn(a.session, feeds, a.label);
    for (;;) {
      let outputs = null, error = null;
      try {
        if (budget === 0) {
          outputs = await run(inputs);
          out.tiles = 1;
        } else {
          const grid = planTiles(image.t.dims[2], image.t.dims[3], budget, this.settings.overlap);
          out.tiles = grid.tiles.length;
          out.tileBudgetPixels = budget;
          outputs = await runTiled(inputs, image.name, grid, run);
        }
      } catch (e) {
        error = classify(e, 'run', a.label);
      }
      if (outputs) {
        const start = performance.now();
        out.checks = runChecks(a.checks, inputs, outputs);
        out.checksMs += performance.now() - start;
        const failed = out.checks.find(c => !c.passed);
        if (!failed) return {...out, outputs};
        this.emit(log, 'check-failed', a.label, `${failed.check}${out.tiles > 1 ? ` (${out.tiles} tiles)` : ''}: ${failed.detail}`);
      } else {
        this.emit(log, 'run-failed', a.label, error.describe(), error);
        if (!retryable(error)) throw error;
      }
      if (!image || retries <= 0) throw error || new ParityGuardError({kind: 'error', stage: 'run', backend: a.label, message: 'every output check failed'});
      budget = Math.floor((budget === 0 ? pixels : budget) / 2);
      --retries;
      this.emit(log, 'retry-tiled', a.label, `again in tiles of at most ${budget} pixels (with ${this.settings.overlap} px overlap)`);
    }
  }

  // feeds: {name: ort.Tensor | {type, dims, data}}. Returns {outputs: {name: ort.Tensor}, backend,
  // tiles, tileBudgetPixels, checks, events, wallMs, checksMs}; throws a ParityGuardError.
  async run(feeds) {
    const start = performance.now();
    const inputs = {};
    for (const [name, t] of Object.entries(feeds)) inputs[name] = toPlain(t);
    const log = [];
    for (;;) {
      const a = this.active;
      if (!a) throw this.exhausted(log);
      try {
        const r = await this.runActive(a, inputs, log);
        const outputs = {};
        for (const [name, t] of Object.entries(r.outputs)) outputs[name] = new this.ort.Tensor(t.type, t.data, t.dims);
        return {...r, outputs, events: log, wallMs: performance.now() - start};
      } catch (e) {
        if (this.active === a) {
          this.emit(log, 'fell-back', a.label, e.message);
          this.reasons.push(`${a.label}: ${e.message}`);
          await this.advance(log);
        }
      }
    }
  }

  async release() {
    for (const s of [this.active && this.active.session, ...this.references.values()])
      if (s) { try { await s.release(); } catch (e) { /* gone */ } }
    this.active = null;
  }
}

export const ParityGuard = {
  // Opens the first backend of the manifest's chain that starts and passes its preflight.
  // options: {force, only, onEvent(event), baseUrl (declaration files; default: beside `model`),
  //           cache (a Storage; default localStorage; null: none), sessionOptions}.
  async open(ort, model, manifest, options = {}) {
    if (!manifest || manifest.schema !== SCHEMA)
      throw new ParityGuardError({kind: 'bad_input', stage: 'parse-args',
                                  message: `not a ${SCHEMA} manifest (schema: ${manifest && manifest.schema})`,
                                  hint: 'load the JSON form: parity manifest SWEEP --out caps.json'});
    const baseUrl = options.baseUrl || new URL(String(model), globalThis.location ? location.href : undefined).href;
    const session = new GuardedSession(ort, manifest, {...options, baseUrl});
    session.buildChain(session.openEvents);
    await session.advance(session.openEvents);
    if (!session.active) throw session.exhausted(session.openEvents);
    return session;
  },
};
