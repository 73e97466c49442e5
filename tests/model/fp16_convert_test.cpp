// convert_to_fp16: converts real models (the generated rule models and the PP-OCR corpus) and runs
// both files on ONNX Runtime's CPU EP through the isolated worker, comparing with the fp32 model.
#include "model/fp16_convert.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/image.h"
#include "isolate/isolated_runner.h"
#include "model/model_surgery.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "parity/dtype.h"
#include "parity/metrics.h"
#include "support/requirements.h"
#include "support/temp_dir.h"

namespace parity::model {
namespace {

namespace fs = std::filesystem;
using parity::testing::TempDir;

std::string test_model(const std::string& stem) {
  return std::string(PARITY_TEST_MODELS) + "/" + stem + ".onnx";
}
std::string ocr_model(const std::string& file) { return std::string(PARITY_THIRD_PARTY) + "/models/" + file; }

// Deterministic pseudo-random values in [lo, hi) (an LCG: no dependence on the standard library's
// distributions, which differ between implementations).
Tensor random_tensor(const Shape& shape, uint32_t seed, float lo = 0.0f, float hi = 1.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape_numel(shape)));
  uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
  }
  return Tensor::from_floats(shape, v);
}

// examples/receipt.png (480x360, printed text), rows [y0, y0+h) and columns [x0, x0+w), normalized
// per channel as PP-OCR's preprocessing does: (v - mean) / std. A text model on random pixels sees
// no text (PP-OCRv4 det answers ~1e-7 everywhere), which would prove nothing.
Tensor receipt_crop(int64_t y0, int64_t x0, int64_t h, int64_t w, const float (&mean)[3],
                    const float (&std)[3]) {
  auto image = load_image_nchw(std::string(PARITY_SOURCE_DIR) + "/examples/receipt.png", {});
  EXPECT_TRUE(image.ok()) << (image.ok() ? "" : image.error().describe());
  if (!image.ok()) return {};
  const int64_t height = image->shape()[2], width = image->shape()[3];
  const auto px = image->view<float>();
  std::vector<float> out(static_cast<std::size_t>(3 * h * w));
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        out[static_cast<std::size_t>((c * h + y) * w + x)] =
            (px[static_cast<std::size_t>((c * height + y0 + y) * width + x0 + x)] - mean[c]) / std[c];
  return Tensor::from_floats({1, 3, h, w}, out);
}

constexpr float kImagenetMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kImagenetStd[3] = {0.229f, 0.224f, 0.225f};
constexpr float kHalfMean[3] = {0.5f, 0.5f, 0.5f};

// Runs `model` on the CPU EP in a worker process.
isolate::IsolatedRun run_on_cpu(const std::string& model, const std::vector<NamedTensor>& inputs,
                                double timeout_s = 300) {
  backend::BackendSpec spec;
  spec.label = spec.ep = "cpu";
  spec.count_nodes = false;
  backend::RunRequest request;
  request.model_path = model;
  request.inputs = inputs;
  isolate::IsolationLimits limits;
  limits.timeout_s = timeout_s;
  isolate::WorkerLaunch launch;
  launch.worker_exe = PARITY_BIN;
  return isolate::run_isolated(spec, request, limits, launch);
}

// The same, failing the test on any error.
std::vector<NamedTensor> run_cpu(const std::string& model, const std::vector<NamedTensor>& inputs) {
  isolate::IsolatedRun run = run_on_cpu(model, inputs);
  EXPECT_TRUE(run.result.ok()) << model << ": " << run.result.error().describe() << "\n" << run.worker_log;
  if (!run.result.ok()) return {};
  return run.result->outputs;
}

struct Measured {
  double cosine = 0;
  double max_abs = 0;
  double ref_max_abs = 0;
};

// Runs the fp32 and fp16 files on the same inputs; every output of the fp16 file must be float32
// (keep_io_types) and of the fp32 output's shape. Returns the worst output's numbers.
Measured compare_runs(const std::string& fp32, const std::string& fp16,
                      const std::vector<NamedTensor>& inputs) {
  const auto want = run_cpu(fp32, inputs);
  const auto got = run_cpu(fp16, inputs);
  Measured worst{1.0, 0.0, 0.0};
  EXPECT_EQ(got.size(), want.size());
  if (got.size() != want.size() || want.empty()) return {};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name);
    EXPECT_EQ(got[i].tensor.dtype(), DType::float32) << got[i].name;
    EXPECT_EQ(got[i].tensor.shape(), want[i].tensor.shape()) << got[i].name;
    if (got[i].tensor.shape() != want[i].tensor.shape()) return {};
    const Comparison c = compare_tensors(got[i].tensor, want[i].tensor, default_tolerance(DType::float16));
    // A cosine needs two elements (a one-element output, Silero's probability, has none): there
    // max_abs alone speaks.
    EXPECT_EQ(c.cosine.has_value(), want[i].tensor.numel() > 1) << got[i].name;
    worst.cosine = std::min(worst.cosine, c.cosine.value_or(want[i].tensor.numel() > 1 ? 0.0 : 1.0));
    worst.max_abs = std::max(worst.max_abs, c.max_abs);
    worst.ref_max_abs = std::max(worst.ref_max_abs, c.ref_max_abs);
  }
  return worst;
}

// The converted file's borders: inputs and outputs as in the original (float32 kept), float16 used.
void expect_io_kept(const std::string& fp32, const std::string& fp16) {
  auto a = inspect_model(fp32);
  auto b = inspect_model(fp16);
  ASSERT_TRUE(a.ok() && b.ok()) << (b.ok() ? "" : b.error().describe());
  ASSERT_EQ(a->inputs.size(), b->inputs.size());
  for (std::size_t i = 0; i < a->inputs.size(); ++i) {
    EXPECT_EQ(b->inputs[i].name, a->inputs[i].name);
    EXPECT_EQ(b->inputs[i].dtype, a->inputs[i].dtype) << b->inputs[i].name;
  }
  ASSERT_EQ(a->outputs.size(), b->outputs.size());
  for (std::size_t i = 0; i < a->outputs.size(); ++i) {
    EXPECT_EQ(b->outputs[i].name, a->outputs[i].name);
    EXPECT_EQ(b->outputs[i].dtype, a->outputs[i].dtype) << b->outputs[i].name;
  }
  EXPECT_TRUE(b->element_types.count(DType::float16));
}

// Producer and consumers of each value in a converted file, by op type.
struct Wiring {
  std::map<std::string, std::string> producer_op;
  std::map<std::string, std::vector<std::string>> consumer_ops;
  std::map<std::string, DType> dtype;
};
Wiring wiring_of(const std::string& path) {
  Wiring w;
  auto s = ModelSurgery::open(path);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().describe());
  if (!s.ok()) return w;
  for (const auto& n : s->outline().nodes) {
    for (const auto& o : n.outputs) w.producer_op[o] = n.op_type;
    for (const auto& i : n.inputs) w.consumer_ops[i].push_back(n.op_type);
  }
  for (const auto& t : s->outline().tensors) w.dtype[t.tensor] = t.dtype;
  return w;
}
const GraphNode* find_node(const ModelSurgery& s, const std::string& op_type) {
  for (const auto& n : s.outline().nodes)
    if (n.op_type == op_type) return &n;
  return nullptr;
}

// --- the PP-OCR corpus ------------------------------------------------------------------------

struct OcrCase {
  const char* file;
  int64_t y0, x0, h, w;  // the crop of the receipt fed to it
  bool imagenet;         // det: ImageNet mean/std; rec, cls: (v - 0.5) / 0.5
  double min_cosine;     // set from measurements (see the CHANGELOG), with margin
};

class Fp16Ocr : public ::testing::TestWithParam<OcrCase> {};

TEST_P(Fp16Ocr, ConvertsRunsAndMatchesFp32) {
  PARITY_REQUIRE("ocr-models");
  const OcrCase& c = GetParam();
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  const std::string in = ocr_model(c.file);
  const std::string out = (tmp / "fp16.onnx").string();

  const auto t0 = std::chrono::steady_clock::now();
  auto report = convert_to_fp16(in, out);
  const double convert_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(report.ok()) << report.error().describe();

  // PP-OCR keeps its weights in Constant nodes (no initializers): those become float16.
  EXPECT_GT(report->converted_constants, 100);
  EXPECT_TRUE(report->type_checked);
  EXPECT_EQ(report->bytes_in, fs::file_size(in));
  EXPECT_EQ(report->bytes_out, fs::file_size(out));
  const double ratio = static_cast<double>(report->bytes_out) / static_cast<double>(report->bytes_in);
  EXPECT_GT(ratio, 0.45);
  EXPECT_LT(ratio, 0.56) << "weights are the bulk of the file: float16 halves it";
  expect_io_kept(in, out);
  for (const auto& b : report->blocked) EXPECT_FALSE(b.reason.empty()) << b.node;
  // Its weights sit in Constant nodes: they count, so the file reads as what it computes in.
  EXPECT_EQ(weight_precision(*inspect_model(in)), "fp32");
  EXPECT_EQ(weight_precision(*inspect_model(out)), "fp16");

  const Tensor x = c.imagenet ? receipt_crop(c.y0, c.x0, c.h, c.w, kImagenetMean, kImagenetStd)
                              : receipt_crop(c.y0, c.x0, c.h, c.w, kHalfMean, kHalfMean);
  const Measured m = compare_runs(in, out, {{"x", x}});
  EXPECT_GE(m.cosine, c.min_cosine);
  std::printf(
      "[fp16] %s input %s: %ju -> %ju bytes (%.3f), convert %.0f ms, constants %d, initializers %d, "
      "clamped %d, blocked %d (%s), casts %d, cast attrs %d; cpu fp16 vs fp32: cosine %.7f max_abs %.3g "
      "(ref max %.3g)\n",
      c.file, shape_to_string(x.shape()).c_str(), report->bytes_in, report->bytes_out, ratio, convert_ms,
      report->converted_constants, report->converted_initializers, report->clamped_values,
      report->blocked_nodes, report->blocked_op_types.empty() ? "-" : report->blocked_op_types[0].c_str(),
      report->casts_inserted, report->rewritten_casts, m.cosine, m.max_abs, m.ref_max_abs);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, Fp16Ocr,
    ::testing::Values(OcrCase{"ch_PP-OCRv4_det_infer.onnx", 0, 0, 160, 224, true, 0.999},
                      OcrCase{"ch_PP-OCRv4_rec_infer.onnx", 14, 100, 48, 288, false, 0.999},
                      OcrCase{"ch_ppocr_mobile_v2.0_cls_infer.onnx", 14, 100, 48, 192, false, 0.999}),
    [](const auto& param_info) {
      std::string name = param_info.param.file;
      name = name.substr(0, name.find('.'));
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !std::isalnum(ch); }, '_');
      return name;
    });

// --- Silero VAD: the whole network sits in If bodies (v4: initializers there, LSTM in nested Ifs;
// v5: Constants read by nested Ifs, two exports) ----------------------------------------------

struct VadCase {
  const char* file;         // under third_party/models
  const char* requirement;  // vad-model or corpus-models
  bool v4;                  // inputs input, sr, h, c; else input, state, sr
};

class Fp16Vad : public ::testing::TestWithParam<VadCase> {};

// Converts, then runs both files on the CPU EP in both sample-rate branches (16 kHz on 512
// samples, 8 kHz on 256) with a state from a previous chunk; every output must match the fp32 run.
TEST_P(Fp16Vad, IfBodiesConvertRunAndMatchFp32) {
  const VadCase& c = GetParam();
  PARITY_REQUIRE(c.requirement);
  TempDir tmp;
  const std::string in = ocr_model(c.file);
  const std::string out = (tmp / "fp16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_TRUE(report->type_checked);
  const int weights = report->converted_initializers + report->converted_constants;
  EXPECT_GT(weights, 20);
  const double ratio = static_cast<double>(report->bytes_out) / static_cast<double>(report->bytes_in);
  EXPECT_LT(ratio, 0.6) << "the weights inside the Ifs are the bulk of the file";
  expect_io_kept(in, out);
  for (const int64_t sr : {16000, 8000}) {
    const int64_t samples = sr == 16000 ? 512 : 256;
    auto rate = Tensor::zeros(DType::int64, {});
    ASSERT_TRUE(rate.ok());
    rate->mutable_view<int64_t>()[0] = sr;
    std::vector<NamedTensor> inputs = {{"input", random_tensor({1, samples}, 21, -0.5f, 0.5f)},
                                       {"sr", std::move(*rate)}};
    if (c.v4) {
      inputs.push_back({"h", random_tensor({2, 1, 64}, 22, -0.3f, 0.3f)});
      inputs.push_back({"c", random_tensor({2, 1, 64}, 23, -0.3f, 0.3f)});
    } else {
      inputs.push_back({"state", random_tensor({2, 1, 128}, 22, -0.3f, 0.3f)});
    }
    const Measured m = compare_runs(in, out, inputs);
    EXPECT_GT(m.cosine, 0.999) << sr;
    EXPECT_LT(m.max_abs, 0.02) << sr;
    std::printf(
        "[fp16] %s sr %jd: %ju -> %ju bytes (%.3f), %d weights, %d blocked; cosine %.7f max_abs %.3g\n",
        c.file, static_cast<intmax_t>(sr), report->bytes_in, report->bytes_out, ratio, weights,
        report->blocked_nodes, m.cosine, m.max_abs);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Fp16Vad,
                         ::testing::Values(VadCase{"corpus/silero_vad_v4.onnx", "corpus-models", true},
                                           VadCase{"silero_vad_v5.onnx", "vad-model", false},
                                           VadCase{"corpus/silero_vad_v5_livekit.onnx", "corpus-models",
                                                   false}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.file;
                           name = name.substr(name.find('/') + 1);
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

// PP-OCRv4 det has a BatchNormalization variance of 9.79e7. Clamped to 65504, as onnxconverter-common
// does, it scales one channel by sqrt(9.79e7 / 65504) = 39x and the text map goes wrong; kept float32
// (the default) the map matches. Measured on this crop: cosine 0.99999 kept vs 0.82 clamped.
TEST(Fp16Ocr, DetNeedsItsWideBatchNormVarianceKeptFloat32) {
  PARITY_REQUIRE("ocr-models");
  TempDir tmp;
  const std::string in = ocr_model("ch_PP-OCRv4_det_infer.onnx");
  const Tensor x = receipt_crop(0, 0, 160, 224, kImagenetMean, kImagenetStd);
  auto kept = convert_to_fp16(in, (tmp / "kept.onnx").string());
  ASSERT_TRUE(kept.ok()) << kept.error().describe();
  const auto bn = std::find_if(kept->blocked.begin(), kept->blocked.end(),
                               [](const Fp16BlockedNode& b) { return b.op_type == "BatchNormalization"; });
  ASSERT_NE(bn, kept->blocked.end());
  EXPECT_NE(bn->reason.find("'batch_norm_0.w_2', a weight beyond float16's range (|x| up to 9.79e+07)"),
            std::string::npos)
      << bn->reason;
  Fp16Options clamp;
  clamp.clamp_wide_weights = true;
  auto clamped = convert_to_fp16(in, (tmp / "clamped.onnx").string(), clamp);
  ASSERT_TRUE(clamped.ok()) << clamped.error().describe();
  EXPECT_EQ(clamped->blocked_op_types, std::vector<std::string>{"Resize"});
  const Measured good = compare_runs(in, (tmp / "kept.onnx").string(), {{"x", x}});
  const Measured bad = compare_runs(in, (tmp / "clamped.onnx").string(), {{"x", x}});
  EXPECT_GT(good.cosine, 0.9999);
  EXPECT_LT(bad.cosine, 0.95) << "if clamping stopped hurting, the rule (and its docs) need a new look";
  std::printf(
      "[fp16] det, wide BN variance kept float32: cosine %.7f max_abs %.3g; clamped: cosine %.7f max_abs "
      "%.3g\n",
      good.cosine, good.max_abs, bad.cosine, bad.max_abs);
}

TEST(Fp16Ocr, DetResizeStaysFloat32BetweenCasts) {
  PARITY_REQUIRE("ocr-models");
  TempDir tmp;
  const std::string out = (tmp / "det16.onnx").string();
  auto report = convert_to_fp16(ocr_model("ch_PP-OCRv4_det_infer.onnx"), out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  // Six Resize nodes (FPN upsampling): in the default block list, so float32 with Casts around.
  const auto& types = report->blocked_op_types;
  EXPECT_NE(std::find(types.begin(), types.end(), "Resize"), types.end());
  const Wiring w = wiring_of(out);
  int resizes = 0;
  for (const auto& [value, op] : w.producer_op) {
    if (op != "Resize") continue;
    ++resizes;
    EXPECT_EQ(w.dtype.at(value), DType::float32) << value;
    for (const auto& consumer : w.consumer_ops.at(value)) EXPECT_EQ(consumer, "Cast") << value;
  }
  EXPECT_EQ(resizes, 6);
}

// --- the rules, on generated models -----------------------------------------------------------

TEST(Fp16Convert, ConvertsWeightsConstantsAndCastsAndKeepsWideWeightsFloat32) {
  TempDir tmp;
  const std::string in = test_model("fp16_weights");
  const std::string out = (tmp / "w16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->converted_initializers, 1) << "w; big (up to 1e6) stays float32";
  EXPECT_EQ(report->converted_constants, 1);  // ConstantOfShape's value
  EXPECT_EQ(report->clamped_values, 2);       // +-1e-9 -> +-min_positive, not 0
  EXPECT_EQ(report->rewritten_casts, 1);      // Cast(to=FLOAT) of Size -> FLOAT16
  ASSERT_EQ(report->blocked.size(), 1u);
  EXPECT_EQ(report->blocked[0].node, "div_big");
  EXPECT_NE(report->blocked[0].reason.find("beyond float16's range (|x| up to 1e+06)"), std::string::npos)
      << report->blocked[0].reason;
  EXPECT_EQ(report->casts_inserted, 4);  // x in (shared by Add, Shape, Size), d to Relu; y, q out
  expect_io_kept(in, out);
  const Wiring w = wiring_of(out);
  EXPECT_EQ(w.dtype.at("size_f"), DType::float16);
  EXPECT_EQ(w.dtype.at("quarters"), DType::float16);
  EXPECT_EQ(w.dtype.at("d"), DType::float32);

  const std::vector<float> x = {100, 200, 300, 400, -100, -200, -300, -400};
  const float big[] = {1e6f, 2e5f, 7e4f, 1e5f};
  const auto outs = run_cpu(out, {{"x", Tensor::from_floats({2, 4}, x)}});
  ASSERT_EQ(outs.size(), 2u);
  const auto y = outs[0].tensor.view<float>();
  const auto q = outs[1].tensor.view<float>();
  for (std::size_t i = 0; i < 8; ++i) {
    const float yy = (x[i] + (i % 4 == 2 ? 0.5f : i % 4 == 3 ? 2.0f : 0.0f)) * 0.25f + 8.0f;
    EXPECT_NEAR(y[i], yy, std::abs(yy) * 2e-3) << i;
    const float qq = std::max(x[i] / big[i % 4], 0.0f);
    EXPECT_NEAR(q[i], qq, qq * 2e-3 + 1e-7) << i;
  }

  // Asked to clamp as onnxconverter-common does: big becomes 65504 and the Div is float16 too.
  Fp16Options clamp;
  clamp.clamp_wide_weights = true;
  const std::string clamped_out = (tmp / "clamped.onnx").string();
  auto clamped = convert_to_fp16(in, clamped_out, clamp);
  ASSERT_TRUE(clamped.ok()) << clamped.error().describe();
  EXPECT_EQ(clamped->converted_initializers, 2);
  EXPECT_EQ(clamped->clamped_values, 6);
  EXPECT_EQ(clamped->blocked_nodes, 0);
  const auto cq = run_cpu(clamped_out, {{"x", Tensor::from_floats({2, 4}, x)}});
  ASSERT_EQ(cq.size(), 2u);
  EXPECT_NEAR(cq[1].tensor.view<float>()[0], 100.0f / 65504.0f, 1e-5) << "clamped: no longer x / 1e6";
}

TEST(Fp16Convert, ResizeWithScalesInputConvertsAndRuns) {
  TempDir tmp;
  const std::string in = test_model("fp16_resize");
  const std::string out = (tmp / "resize16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->converted_initializers, 2) << "w and gain; scales stays tensor(float)";
  EXPECT_TRUE(report->type_checked);
  ASSERT_EQ(report->blocked.size(), 1u);
  EXPECT_EQ(report->blocked[0].op_type, "Resize");
  EXPECT_EQ(report->blocked[0].reason, "in the block list");
  auto s = ModelSurgery::open(out);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const GraphNode* resize = find_node(*s, "Resize");
  ASSERT_NE(resize, nullptr);
  ASSERT_EQ(resize->inputs.size(), 3u);
  EXPECT_EQ(resize->inputs[2], "scales");
  const Wiring w = wiring_of(out);
  EXPECT_EQ(w.producer_op.at(resize->inputs[0]), "Cast");  // float16 Conv output cast up
  EXPECT_EQ(w.dtype.at(resize->inputs[0]), DType::float32);
  expect_io_kept(in, out);
  const Measured m = compare_runs(in, out, {{"x", random_tensor({1, 3, 16, 24}, 3)}});
  EXPECT_GT(m.cosine, 0.9999);
  EXPECT_LT(m.max_abs, 0.02);
  std::printf("[fp16] fp16_resize: cosine %.7f max_abs %.3g\n", m.cosine, m.max_abs);
}

TEST(Fp16Convert, UpsampleOpset9KeepsConstantScalesFloat32) {
  TempDir tmp;
  const std::string in = test_model("fp16_upsample_opset9");
  const std::string out = (tmp / "up16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->converted_constants, 0) << "the scales Constant is read by Upsample only";
  EXPECT_EQ(report->converted_initializers, 1);
  EXPECT_EQ(report->blocked_op_types, std::vector<std::string>{"Upsample"});
  const Measured m = compare_runs(in, out, {{"x", random_tensor({1, 2, 5, 7}, 4, -3, 3)}});
  EXPECT_GT(m.cosine, 0.9999);
  EXPECT_LT(m.max_abs, 2e-3);
}

TEST(Fp16Convert, CustomBlockOpStaysFloat32WithCastsAround) {
  TempDir tmp;
  const std::string in = test_model("fp16_block_softmax");
  const std::string out = (tmp / "soft16.onnx").string();
  Fp16Options options;
  options.block_ops = {"Softmax"};
  auto report = convert_to_fp16(in, out, options);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->blocked_op_types, std::vector<std::string>{"Softmax"});
  EXPECT_TRUE(report->type_checked);
  EXPECT_EQ(report->casts_inserted, 4);  // x in, logits up, probs down, y out
  const Wiring w = wiring_of(out);
  auto s = ModelSurgery::open(out);
  ASSERT_TRUE(s.ok());
  const GraphNode* softmax = find_node(*s, "Softmax");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(w.producer_op.at(softmax->inputs[0]), "Cast");
  EXPECT_EQ(w.dtype.at(softmax->inputs[0]), DType::float32);
  EXPECT_EQ(w.dtype.at(softmax->outputs[0]), DType::float32);
  EXPECT_EQ(w.consumer_ops.at(softmax->outputs[0]), std::vector<std::string>{"Cast"});
  const GraphNode* matmul = find_node(*s, "MatMul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(w.dtype.at(matmul->outputs[0]), DType::float16);
  const Measured m = compare_runs(in, out, {{"x", random_tensor({3, 16}, 5, -1, 1)}});
  EXPECT_GT(m.cosine, 0.9999);

  // Without the option Softmax is converted: the same model has no blocked node at all.
  auto plain = convert_to_fp16(in, (tmp / "plain.onnx").string());
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  EXPECT_EQ(plain->blocked_nodes, 0);
  EXPECT_EQ(plain->casts_inserted, 2);
}

// The If stays float32 at its borders, its branches compute in float16: `a` (float16 outside) and
// `b` (an initializer only the branches read, now float16) reach them with no Cast in between.
TEST(Fp16Convert, IfBodiesConvertAndReadOuterValuesInTheirPrecision) {
  TempDir tmp;
  const std::string in = test_model("fp16_if_subgraph");
  const std::string out = (tmp / "if16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  ASSERT_EQ(report->blocked.size(), 1u);
  EXPECT_EQ(report->blocked[0].node, "branch");
  EXPECT_TRUE(report->type_checked);
  EXPECT_EQ(report->blocked[0].op_type, "If");
  EXPECT_NE(report->blocked[0].reason.find("subgraph"), std::string::npos);
  EXPECT_EQ(report->converted_initializers, 3) << "w, zero, and b read by the branches only";
  auto s = ModelSurgery::open(out);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const GraphNode* branch = find_node(*s, "If");
  ASSERT_NE(branch, nullptr);
  const Wiring w = wiring_of(out);
  ASSERT_EQ(branch->outer_inputs.size(), 2u);
  for (const auto& r : branch->outer_inputs)
    EXPECT_TRUE(r == "a" || r == "b") << r << ": a Cast between the value and the branches";
  EXPECT_EQ(w.dtype.at("a"), DType::float16);
  EXPECT_EQ(w.producer_op.at("a"), "Mul");
  // Both branches, each compared with the fp32 model.
  for (const float sign : {1.0f, -1.0f}) {
    std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
    for (float& v : x) v *= sign;
    const Measured m = compare_runs(in, out, {{"x", Tensor::from_floats({2, 4}, x)}});
    EXPECT_GT(m.cosine, 0.9999) << sign;
    EXPECT_LT(m.max_abs, 0.01) << sign;
  }
}

// Silero v5's layout: the weights are Constants inside a branch, read one If further in. Both
// become float16 (read in float16 by the inner branches), and both outer branches run.
TEST(Fp16Convert, NestedIfBodiesConvertTheirConstants) {
  TempDir tmp;
  const std::string in = test_model("fp16_nested_if");
  const std::string out = (tmp / "nested16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_TRUE(report->type_checked);
  EXPECT_EQ(report->converted_constants, 2) << "weight and bias, inside the then branch";
  EXPECT_EQ(report->converted_initializers, 1) << "zero, read by Greater in float16";
  std::vector<std::string> blocked;
  for (const auto& b : report->blocked) blocked.push_back(b.node);
  EXPECT_EQ(blocked, (std::vector<std::string>{"branch", "inner_branch"})) << "the If nodes, borders only";
  EXPECT_EQ(weight_precision(*inspect_model(out)), "fp16");
  for (const float sign : {1.0f, -1.0f}) {
    const Measured m = compare_runs(in, out, {{"x", random_tensor({2, 4}, 11, 0.1f * sign, 2.0f * sign)}});
    EXPECT_GT(m.cosine, 0.9999) << sign;
    EXPECT_LT(m.max_abs, 0.01) << sign;
  }
}

// A Loop body: its weight initializer becomes float16; the loop-carried value and the outer `x` it
// reads stay float32 at the body's borders.
TEST(Fp16Convert, LoopBodyConvertsBehindFloat32Borders) {
  TempDir tmp;
  const std::string in = test_model("fp16_loop_body");
  const std::string out = (tmp / "loop16.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_TRUE(report->type_checked);
  EXPECT_EQ(report->converted_initializers, 1) << "the body's w";
  const Measured m = compare_runs(in, out, {{"x", random_tensor({4}, 12, -2, 2)}});
  EXPECT_GT(m.cosine, 0.9999);
  EXPECT_LT(m.max_abs, 0.02);
}

TEST(Fp16Convert, Opset21ModelConvertsAndRuns) {
  TempDir tmp;
  const std::string in = test_model("fp16_opset21");
  const std::string out = (tmp / "o21.onnx").string();
  auto report = convert_to_fp16(in, out);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->converted_initializers, 1) << "w; axes is int64";
  std::printf("[fp16] opset 21: type_checked %d\n", report->type_checked ? 1 : 0);
  EXPECT_EQ(report->blocked_nodes, 0);
  const Measured m = compare_runs(in, out, {{"x", random_tensor({1, 8}, 6, -4, 4)}});
  EXPECT_GT(m.cosine, 0.9999);
}

TEST(Fp16Convert, WithoutKeepIoTypesTheBordersAreFloat16) {
  TempDir tmp;
  const std::string in = test_model("matmul_add_relu");
  const std::string out = (tmp / "mm16.onnx").string();
  Fp16Options options;
  options.keep_io_types = false;
  auto report = convert_to_fp16(in, out, options);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->casts_inserted, 0);
  EXPECT_EQ(report->converted_initializers, 2);
  auto info = inspect_model(out);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->inputs[0].dtype, DType::float16);
  EXPECT_EQ(info->outputs[0].dtype, DType::float16);

  const Tensor x32 = random_tensor({2, 16}, 8, -1, 1);
  std::vector<std::byte> half(x32.byte_size() / 2);
  for (std::size_t i = 0; i < x32.view<float>().size(); ++i) {
    const uint16_t h = float_to_half(x32.view<float>()[i]);
    std::memcpy(half.data() + 2 * i, &h, 2);
  }
  auto x16 = Tensor::from_bytes(DType::float16, {2, 16}, std::move(half));
  ASSERT_TRUE(x16.ok());
  const auto want = run_cpu(in, {{"x", x32}});
  const auto got = run_cpu(out, {{"x", *x16}});
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(got[0].tensor.dtype(), DType::float16);
  const Comparison c = compare_tensors(got[0].tensor, want[0].tensor, default_tolerance(DType::float16));
  EXPECT_GT(c.cosine.value_or(0), 0.999);
}

// --- the ONNX backend test suite -------------------------------------------------------------

// Every node test (Debian's libonnx-testdata) the converter accepts must load and run on ORT's CPU
// EP, on the suite's inputs, and match the float32 model's outputs on the same EP within float16's
// default rule (not the suite's expected outputs: Dropout and Bernoulli draw other random numbers
// in ORT, and MaxUnpool differs in float32 too); those it refuses must be refused as bad_input,
// never with an internal error. Measured with ORT 1.30.0: 449 converted, 444 run (5 fail in
// float32 too), all match; 483 refused, 95 of them models that only move values (Identity,
// Reshape, Transpose, Concat, ...) and hold no float32 weight: nothing to convert.
TEST(Fp16Convert, OnnxNodeSuiteConvertsRunsAndMatches) {
  PARITY_REQUIRE("onnx-testdata");
  PARITY_REQUIRE("slow");
  TempDir tmp;
  const fs::path suite = "/usr/share/libonnx-testdata/data/node";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(suite)) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  int converted = 0, refused = 0, ran = 0, matched = 0;
  for (const fs::path& dir : cases) {
    const std::string out = (tmp / "node16.onnx").string();
    auto report = convert_to_fp16(dir / "model.onnx", out);
    if (!report.ok()) {
      EXPECT_EQ(report.error().kind, ErrorKind::bad_input) << dir << ": " << report.error().describe();
      ++refused;
      continue;
    }
    ++converted;
    EXPECT_TRUE(report->type_checked) << dir;
    auto info = inspect_model(dir / "model.onnx");
    ASSERT_TRUE(info.ok());
    std::vector<NamedTensor> inputs;
    bool readable = true;
    for (std::size_t i = 0; i < info->inputs.size() && readable; ++i) {
      auto t = read_tensor_proto(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"));
      readable = t.ok();
      if (readable) inputs.push_back({info->inputs[i].name, std::move(t->tensor)});
    }
    if (!readable) continue;  // sequences and optionals: the suite's own format, not tensors
    const auto fp32 = run_on_cpu((dir / "model.onnx").string(), inputs, 120);
    if (!fp32.result.ok()) continue;  // ORT cannot run the float32 model either
    const auto fp16 = run_on_cpu(out, inputs, 120);
    ASSERT_TRUE(fp16.result.ok()) << dir << ": " << fp16.result.error().describe();
    ++ran;
    const auto& expected = fp32.result->outputs;
    ASSERT_EQ(fp16.result->outputs.size(), expected.size()) << dir;
    bool all = true;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const Tensor& got = fp16.result->outputs[i].tensor;
      const Tensor& want = expected[i].tensor;
      EXPECT_EQ(got.dtype(), want.dtype()) << dir << " output " << i;
      EXPECT_EQ(got.shape(), want.shape()) << dir << " output " << i;
      if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
        all = false;
        continue;
      }
      const DType rule = want.dtype() == DType::float32 ? DType::float16 : want.dtype();
      const Comparison c = compare_tensors(got, want, default_tolerance(rule));
      const bool ok = c.elements_over_tol == 0 || c.cosine.value_or(0) >= 0.999;
      EXPECT_TRUE(ok) << dir << " output " << i << ": cosine " << c.cosine.value_or(-1) << " max_abs "
                      << c.max_abs << " over tolerance " << c.elements_over_tol;
      all = all && ok;
    }
    matched += all;
  }
  std::printf("[fp16] ONNX node suite: %d converted, %d refused (bad_input), %d ran on cpu, %d matched\n",
              converted, refused, ran, matched);
  EXPECT_GE(converted, 440);
  EXPECT_GE(ran, 435);
}

// --- refusals --------------------------------------------------------------------------------

TEST(Fp16Convert, RefusesAModelThatAlreadyHoldsFloat16) {
  TempDir tmp;
  auto report = convert_to_fp16(test_model("fp16_image_scale"), (tmp / "x.onnx").string());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ErrorKind::bad_input);
  EXPECT_NE(report.error().message.find("already holds float16"), std::string::npos)
      << report.error().message;
  EXPECT_FALSE(report.error().hint.empty());
  EXPECT_FALSE(fs::exists(tmp / "x.onnx"));

  // Our own output, converted again, is refused the same way.
  ASSERT_TRUE(convert_to_fp16(test_model("matmul_add_relu"), (tmp / "once.onnx").string()).ok());
  auto twice = convert_to_fp16((tmp / "once.onnx").string(), (tmp / "twice.onnx").string());
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().kind, ErrorKind::bad_input);
}

// Identity and Reshape in float16 between two Casts would be a file called fp16 that holds none:
// refused, with the reason, and nothing written.
TEST(Fp16Convert, RefusesAModelWithNothingToConvert) {
  TempDir tmp;
  auto report = convert_to_fp16(test_model("fp16_nothing"), tmp / "x.onnx");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ErrorKind::bad_input);
  EXPECT_NE(report.error().message.find("nothing to convert"), std::string::npos) << report.error().message;
  EXPECT_NE(report.error().message.find("no float32 weight"), std::string::npos) << report.error().message;
  EXPECT_FALSE(report.error().hint.empty());
  EXPECT_FALSE(fs::exists(tmp / "x.onnx"));
}

TEST(Fp16Convert, MissingAndMalformedFilesAreErrorsNotCrashes) {
  TempDir tmp;
  auto missing = convert_to_fp16(tmp / "nope.onnx", tmp / "out.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::io);
  EXPECT_EQ(missing.error().stage, Stage::load_model);
  for (const char* stem : {"not_onnx", "truncated"}) {
    auto bad = convert_to_fp16(test_model(stem), tmp / "out.onnx");
    ASSERT_FALSE(bad.ok()) << stem;
    EXPECT_EQ(bad.error().kind, ErrorKind::bad_input) << stem;
  }
  auto unwritable = convert_to_fp16(test_model("matmul_add_relu"), tmp / "no-such-dir" / "out.onnx");
  ASSERT_FALSE(unwritable.ok());
  EXPECT_EQ(unwritable.error().kind, ErrorKind::io);
  EXPECT_EQ(unwritable.error().stage, Stage::write_output);
}

TEST(Fp16Convert, DefaultBlockListIsOnnxconverterCommons) {
  const auto& list = default_fp16_block_list();
  EXPECT_EQ(list.size(), 28u);
  for (const char* op : {"Resize", "Upsample", "NonMaxSuppression", "TopK", "Range", "CumSum", "Min", "Max",
                         "RoiAlign", "RandomUniformLike", "ZipMap"})
    EXPECT_NE(std::find(list.begin(), list.end(), op), list.end()) << op;
}

}  // namespace
}  // namespace parity::model
