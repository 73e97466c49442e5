#include "backend/browser/repro_page.h"

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace parity::backend::browser {
namespace {

constexpr std::size_t kMaxEmbeddedBytes = 8u << 20;

// float16 would need Float16Array handling that not every browser has.
bool embeddable(DType t) { return ort_web_takes(t) && t != DType::float16; }

nlohmann::json tensors_json(const std::vector<NamedTensor>& tensors, std::size_t& total, bool& ok) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& t : tensors) {
    ok = ok && embeddable(t.tensor.dtype());
    total += t.tensor.byte_size();
    list.push_back(
        {{"name", t.name},
         {"type", std::string(dtype_name(t.tensor.dtype()))},
         {"dims", t.tensor.shape()},
         {"b64", base64_encode(std::string_view(reinterpret_cast<const char*>(t.tensor.bytes().data()),
                                                t.tensor.bytes().size()))}});
  }
  return list;
}

// The page's script; the data line is prepended (through json_for_script: tensor names come from
// the model, and a name holding "</script>" must not end the block). Plain ES2020, no build step.
constexpr const char* kScript = R"js(
const ARRAYS = {float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array};
const out = document.getElementById('out');
const say = (line) => { out.textContent += line + '\n'; console.log(line); };
function decode(t) {
  const bin = atob(t.b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  return new ARRAYS[t.type](bytes.buffer);
}
try {
  const ort = await import(REPRO.bundle_url);
  say(`onnxruntime-web ${ort.env.versions.web}, ${REPRO.bundle}, EP ${REPRO.ep}`);
  const model = new Uint8Array(await (await fetch('model.onnx')).arrayBuffer());
  const session = await ort.InferenceSession.create(model, {executionProviders: [REPRO.ep]});
  const feeds = {};
  for (const t of REPRO.inputs) feeds[t.name] = new ort.Tensor(t.type, decode(t), t.dims);
  const results = await session.run(feeds);
  let fails = false;
  for (const e of REPRO.expected) {
    const want = decode(e), got = results[e.name].data;
    let worst = 0, at = 0, bad = 0;
    for (let i = 0; i < want.length; ++i) {
      const d = Math.abs(Number(got[i]) - Number(want[i]));
      if (!(d <= REPRO.atol + REPRO.rtol * Math.abs(Number(want[i])))) ++bad;
      if (!(d <= worst)) { worst = d; at = i; }
    }
    fails = fails || bad > 0;
    say(`${e.name}: ${bad} of ${want.length} elements outside atol ${REPRO.atol} + rtol ${REPRO.rtol}; ` +
        `max_abs ${worst} at ${at} (got ${got[at]}, expected ${want[at]})`);
  }
  say(fails ? 'STILL FAILS' : 'matches the expected outputs (fixed)');
} catch (e) {
  say('error: ' + (e && e.message ? e.message : String(e)));
}
)js";

}  // namespace

std::string render_repro_page(const ReproPage& page) {
  std::size_t total = 0;
  bool ok = true;
  nlohmann::json data = {
      {"bundle", std::string(page.path.bundle)},
      {"bundle_url", "https://cdn.jsdelivr.net/npm/onnxruntime-web@" + page.ort_web_version + "/dist/" +
                         std::string(page.path.bundle)},
      {"ep", std::string(page.path.ort_ep)},
      {"atol", page.atol},
      {"rtol", page.rtol},
      {"inputs", tensors_json(page.inputs, total, ok)},
      {"expected", tensors_json(page.expected, total, ok)},
  };
  if (!ok || total > kMaxEmbeddedBytes || page.ort_web_version.empty()) return {};
  std::string title = page.title;
  for (char& c : title)
    if (c == '<' || c == '>' || c == '&') c = ' ';
  return "<!doctype html>\n<meta charset=\"utf-8\">\n<title>" + title + "</title>\n<h1>" + title +
         "</h1>\n<p>Written by <code>parity bisect</code>. Serve this folder (<code>python3 -m "
         "http.server</code>) "
         "and open this page; it needs network access to jsDelivr.</p>\n<pre id=\"out\"></pre>\n"
         "<script type=\"module\">\nconst REPRO = " +
         json_for_script(data.dump()) + ";\n" + kScript + "</script>\n";
}

}  // namespace parity::backend::browser
