// The page's whole use of the guard: load the manifest, open a guarded session on the page's own
// onnxruntime-web, run the image, draw the result. Every decision goes to the log as it happens.
import * as ort from './ort/ort.webgpu.bundle.min.mjs';
import {ParityGuard, ParityGuardError} from './parity-guard.mjs';

const params = new URLSearchParams(location.search);
const status = document.getElementById('status');
const log = document.getElementById('log');
const say = line => { log.textContent += line + '\n'; };

async function loadImage(url) {
  const img = new Image();
  img.src = url;
  await img.decode();
  const canvas = document.getElementById('input');
  canvas.width = img.width;
  canvas.height = img.height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const {data, width, height} = ctx.getImageData(0, 0, img.width, img.height);
  const x = new Float32Array(3 * width * height);
  for (let i = 0; i < width * height; ++i)
    for (let c = 0; c < 3; ++c) x[c * width * height + i] = data[4 * i + c] / 255;
  return new ort.Tensor('float32', x, [1, 3, height, width]);
}

function draw(tensor) {
  const [, , h, w] = tensor.dims;
  const canvas = document.getElementById('output');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d');
  const pixels = ctx.createImageData(w, h);
  for (let i = 0; i < w * h; ++i) {
    for (let c = 0; c < 3; ++c) pixels.data[4 * i + c] = Math.round(Math.min(1, Math.max(0, tensor.data[c * w * h + i])) * 255);
    pixels.data[4 * i + 3] = 255;
  }
  ctx.putImageData(pixels, 0, 0);
}

async function main() {
  const manifest = await (await fetch('caps.json')).json();
  const x = await loadImage(params.get('image') || 'receipt.png');
  const session = await ParityGuard.open(ort, 'guard_upscale.onnx', manifest, {
    force: params.get('backend') || undefined,
    onEvent: e => say(`${e.kind.padEnd(17)} ${e.backend.padEnd(11)} ${e.message}`),
  });
  const out = await session.run({x});
  draw(out.outputs.y);
  const [, , h, w] = out.outputs.y.dims;
  status.textContent = `done: ${x.dims[3]}x${x.dims[2]} -> ${w}x${h} on ${out.backend}, ${out.tiles} tile(s), ` +
                       `${out.wallMs.toFixed(0)} ms, checks ${out.checks.map(c => c.check).join(', ')}`;
  globalThis.parityExample = {done: true, backend: out.backend, dims: Array.from(out.outputs.y.dims), tiles: out.tiles,
                              log: log.textContent};
}

main().catch(e => {
  const text = e instanceof ParityGuardError ? `error: ${e.describe()}` : `error: ${e && e.message || e}`;
  status.textContent = text;
  status.className = 'error';
  globalThis.parityExample = {done: true, error: text, log: log.textContent};
});
