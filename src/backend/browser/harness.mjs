// Parity's page-side harness for onnxruntime-web, served by WebServer at /parity/harness.mjs and
// driven from C++ (WebBackend) over the DevTools protocol with Runtime.evaluate.
//
// Contract: every entry point of globalThis.parity resolves to a JSON-able object, never throws:
//   {ok: true, ...values}  or  {ok: false, error: {message, name, numeric}}
// `numeric` is true when onnxruntime-web threw a bare number (an uncaught C++ exception inside
// its wasm module, whose text is not exposed): C++ turns that into a typed error with a hint.
// Tensors never travel as JSON numbers: inputs are fetched as raw bytes from /blob/..., outputs
// are POSTed as raw bytes to /out/...; only names, types and dims cross CDP.

const LOG_KEEP = 400;  // ORT log lines kept for error reports (the newest)

const state = {
  ort: null,
  session: null,
  device: null,
  deviceLost: null,    // "reason: message" once the WebGPU device is lost
  validation: [],      // uncaptured WebGPU errors since the last reset
  ortLog: [],          // the newest ORT log lines (all severities)
  trace: false,        // post page-side steps as console lines (see step())
  step: 'page loaded', // what the page is doing now: the heartbeat carries it
  placement: null,     // [{ep, nodes}] from ORT's "Node placements" verbose log; null: not logged
};

// ORT's log lines look like "2026-12-03 07:28:37.76 [V:onnxruntime:, file.cc:12 Fn] text",
// sometimes wrapped in ANSI colour codes. Verbose and info lines are kept here (they are many,
// and forwarding each over CDP would cost more than the run); warnings and errors pass on.
const ORT_LINE = /\[([VIWEF]):onnxruntime:/;
const PLACED = /placed on \[(\w+)\]\. Number of nodes: (\d+)/;
const PLACEMENTS = /Node placements/;  // printed even when no node is left (a folded graph)
for (const level of ['log', 'info', 'debug', 'warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    const text = args.map(a => (typeof a === 'string' ? a : String(a))).join(' ');
    const m = ORT_LINE.exec(text);
    if (m) {
      state.ortLog.push(text.replace(/\x1b\[[0-9;]*m/g, ''));
      if (state.ortLog.length > LOG_KEEP) state.ortLog.splice(0, state.ortLog.length - LOG_KEEP);
      if (PLACEMENTS.test(text)) state.placement = state.placement || [];
      const p = PLACED.exec(text);
      if (p) (state.placement = state.placement || []).push({ep: p[1], nodes: Number(p[2])});
      if (m[1] === 'V' || m[1] === 'I') return;
    }
    original(...args);
  };
}

// What the page is doing. The heartbeat reports it, so a stall names its step; with
// PARITY_BROWSER_TRACE (load's `trace` argument) each step is also a console line with the
// page's clock, so a trace shows which step of a run the time went to.
function step(text) {
  state.step = text;
  if (state.trace) console.debug(`[parity-mark] ${performance.now().toFixed(1)} ms ${text}`);
}

// The heartbeat: every second, the step the page is in, through the CDP binding ChromiumSession
// added (Runtime.bindingCalled). It stops when the main thread is blocked; it goes on while the
// page awaits a promise, which is how C++ tells a waiting page from a frozen one (stall_watch.h).
setInterval(() => {
  if (typeof globalThis.parityBeat === 'function') globalThis.parityBeat(state.step);
}, 1000);

function failure(e) {
  if (typeof e === 'number' || typeof e === 'bigint')
    return {ok: false, error: {message: String(e), name: 'number', numeric: true}};
  const message = e && e.message !== undefined ? String(e.message) : String(e);
  return {ok: false, error: {message, name: (e && e.name) || typeof e, numeric: false}};
}

async function guarded(fn) {
  try {
    return await fn();
  } catch (e) {
    return failure(e);
  }
}

// Test faults (PARITY_TEST_FAULT) that happen inside the page. segv is done by the C++ side
// (CDP Page.crash), device-lost and null in run(); WebBackend refuses the others.
function faultAt(fault, stage) {
  if (!fault || fault.stage !== stage) return;
  if (fault.action === 'hang') for (;;) {}  // blocks the renderer's main thread for good
  if (fault.action === 'abort') throw 1234567;  // what an aborted wasm build throws: a bare number
}

// The stall fault: the page stays alive (heartbeat on) but awaits a promise no one settles, as a
// page waiting for a lost GPU fence or a fetch that never returns would.
async function stallAt(fault, stage) {
  if (!fault || fault.stage !== stage || fault.action !== 'stall') return;
  step(`${stage}: stalled on purpose (test fault)`);
  await new Promise(() => {});
}

const ELEMENT_ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
};

// onnxruntime-web may replace its device between sessions (the native WebGPU EP destroys it when
// the last session is released), so only the current device's loss counts.
function watchDevice(device) {
  if (!device || device === state.device) return;
  state.device = device;
  state.deviceLost = null;
  device.addEventListener('uncapturederror', ev => {
    if (device === state.device && state.validation.length < 20)
      state.validation.push(String(ev.error && ev.error.message));
  });
  device.lost.then(info => {
    if (device === state.device) state.deviceLost = `${info.reason}: ${info.message}`;
  });
}

function currentDevice() {
  try {
    const d = state.ort && state.ort.env.webgpu && state.ort.env.webgpu.device;
    return d && typeof d.then !== 'function' ? d : null;
  } catch (e) {
    return null;
  }
}

// onnxruntime-web instantiates its wasm module (and, for WebGPU, its device) on the first
// InferenceSession.create. A throwaway session on a tiny model does that once per page, so the
// cost is the page's setup and create_ms measures the user's session alone. A failure here is
// only recorded: the real create reports it at its own stage.
async function warmUp(w) {
  if (!w) return {ms: 0, error: null};
  const t0 = performance.now();
  step('warming up onnxruntime-web');
  try {
    const bytes = new Uint8Array(await (await fetch(w.model_url)).arrayBuffer());
    const session = await state.ort.InferenceSession.create(bytes, {executionProviders: [w.ep]});
    const x = new state.ort.Tensor('float32', new Float32Array(8), [1, 8]);
    await session.run({x});
    await session.release();
    return {ms: performance.now() - t0, error: null};
  } catch (e) {
    return {ms: performance.now() - t0, error: failure(e).error.message};
  }
}

globalThis.parity = {
  // Imports one onnxruntime-web bundle into this page (one bundle per page: C++ navigates to a
  // fresh page to change it) and applies the env settings that must precede the first session.
  load: (args) => guarded(async () => {
    faultAt(args.fault, 'load-library');
    await stallAt(args.fault, 'load-library');
    state.trace = args.trace === true;
    step(`importing ${args.bundle}`);
    state.ort = await import(args.bundle);
    const env = state.ort.env;
    if (args.threads > 0) env.wasm.numThreads = args.threads;
    if (args.log_level) env.logLevel = args.log_level;
    const warmup = await warmUp(args.warmup);
    step('idle');
    return {
      ok: true,
      warmup_ms: warmup.ms,
      warmup_error: warmup.error,
      version: env.versions && env.versions.web,
      common: env.versions && env.versions.common,
      threads: env.wasm.numThreads === undefined ? 0 : env.wasm.numThreads,
      isolated: globalThis.crossOriginIsolated === true,
      hardware_concurrency: navigator.hardwareConcurrency,
    };
  }),

  // The WebGPU adapter this page gets (what onnxruntime-web will request too).
  adapter: (args) => guarded(async () => {
    faultAt(args.fault, 'append-provider');
    await stallAt(args.fault, 'append-provider');
    if (!navigator.gpu) return {ok: true, gpu: false};
    const a = await navigator.gpu.requestAdapter(args.power ? {powerPreference: args.power} : undefined);
    if (!a) return {ok: true, gpu: true, adapter: null};
    const info = a.info || {};
    const limits = {};
    for (const k of ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupStorageSize',
                     'maxComputeInvocationsPerWorkgroup', 'maxStorageBuffersPerShaderStage'])
      limits[k] = a.limits[k];
    return {
      ok: true, gpu: true,
      adapter: {vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '',
                description: info.description || '', is_fallback: info.isFallbackAdapter === true,
                features: [...a.features].sort(), limits},
    };
  }),

  // Creates the session from the model's bytes. `options` is an InferenceSession.SessionOptions.
  create: (args) => guarded(async () => {
    faultAt(args.fault, 'create-session');
    await stallAt(args.fault, 'create-session');
    if (state.session) { await state.session.release(); state.session = null; }
    state.placement = null;
    state.validation = [];
    step('fetching the model');
    const response = await fetch(args.model_url);
    if (!response.ok) throw new Error(`fetching the model failed: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    step(`creating the session (${bytes.byteLength} bytes)`);
    const t0 = performance.now();
    state.session = await state.ort.InferenceSession.create(bytes, args.options);
    const create_ms = performance.now() - t0;
    step('idle');
    watchDevice(currentDevice());
    return {
      ok: true, create_ms, placement: state.placement,
      input_names: state.session.inputNames, output_names: state.session.outputNames,
      device_f16: state.device ? state.device.features.has('shader-f16') : null,
      validation: state.validation,
    };
  }),

  // Runs the session: inputs are fetched from their URLs as raw bytes; each output is POSTed as
  // raw bytes to `${args.upload}/${index}`. Returns the outputs' names, types and dims.
  run: (args) => guarded(async () => {
    faultAt(args.fault, 'run');
    await stallAt(args.fault, 'run');
    if (!state.session) throw new Error('no session (create failed or was not called)');
    if (state.deviceLost) throw new Error(`WebGPU device lost before run (${state.deviceLost})`);
    if (args.fault && args.fault.action === 'device-lost' && state.device) {
      state.device.destroy();  // a real device loss, as a driver reset would cause
      await state.device.lost;
    }
    state.validation = [];
    step('fetching inputs');
    const feeds = {};
    for (const input of args.inputs) {
      const response = await fetch(input.url);
      if (!response.ok) throw new Error(`fetching input '${input.name}' failed: HTTP ${response.status}`);
      const buffer = await response.arrayBuffer();
      const Array_ = ELEMENT_ARRAYS[input.type];
      if (!Array_) throw new Error(`input '${input.name}': type ${input.type} cannot cross to the browser`);
      feeds[input.name] = new state.ort.Tensor(input.type, new Array_(buffer), input.dims);
    }
    step('session.run');
    const fetches = args.outputs.length ? args.outputs : undefined;
    for (let i = 0; i < args.warmup; ++i) await state.session.run(feeds, fetches);
    const t0 = performance.now();
    const results = await state.session.run(feeds, fetches);
    const run_ms = performance.now() - t0;
    step('uploading outputs');
    faultAt(args.fault, 'read-output');
    await stallAt(args.fault, 'read-output');
    const outputs = [];
    const names = Object.keys(results);
    if (args.fault && args.fault.stage === 'read-output' && args.fault.action === 'null') names.length = 0;
    for (let i = 0; i < names.length; ++i) {
      const t = results[names[i]];
      const data = t.location === 'cpu' || t.location === undefined ? t.data : await t.getData(true);
      if (typeof data[0] === 'string') throw new Error(`output '${names[i]}' is a string tensor`);
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const posted = await fetch(`${args.upload}/${i}`, {method: 'POST', body: bytes});
      if (!posted.ok) throw new Error(`uploading output '${names[i]}' failed: HTTP ${posted.status}`);
      outputs.push({name: names[i], type: t.type, dims: t.dims.map(Number), bytes: bytes.byteLength});
      if (typeof t.dispose === 'function') t.dispose();
    }
    step('idle');
    return {ok: true, run_ms, outputs, validation: state.validation, device_lost: state.deviceLost};
  }),

  release: () => guarded(async () => {
    if (state.session) await state.session.release();
    state.session = null;
    return {ok: true};
  }),

  // What an error report needs: the newest ORT log lines and the device state.
  diagnostics: () => ({ok: true, ort_log: state.ortLog.slice(-40), device_lost: state.deviceLost,
                       validation: state.validation}),
};
