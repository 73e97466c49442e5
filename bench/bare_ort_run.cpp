// bench/bare_ort_run.cpp: the baseline of bench/probe_overhead_bench.sh: one model run the way an
// application runs it, with nothing of Parity's in the way: ONNX Runtime's own C++ API, one
// session on one EP, one run on inputs from ONNX test-data files, the outputs' sum printed (so the
// run cannot be optimised away and a reader sees it ran). Whole-process time is what is compared.
//
//   bare_ort_run MODEL EP INPUT.pb [INPUT.pb ...]      EP: cpu | webgpu
#include <onnxruntime_cxx_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "model/tensor_proto.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bare_ort_run MODEL EP INPUT.pb [INPUT.pb ...]\n");
    return 2;
  }
  const std::string ep = argv[2];
  std::vector<parity::NamedTensor> inputs;
  for (int i = 3; i < argc; ++i) {
    auto t = parity::model::read_tensor_proto(argv[i]);
    if (!t.ok() || t->tensor.dtype() != parity::DType::float32) {
      std::fprintf(stderr, "%s: not a float32 TensorProto\n", argv[i]);
      return 2;
    }
    inputs.push_back(std::move(t).value());
  }
  try {
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "bare_ort_run");
    Ort::SessionOptions options;
    if (ep == "webgpu") options.AppendExecutionProvider("WebGPU", {});
    Ort::Session session(env, argv[1], options);
    const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    std::vector<Ort::Value> values;
    std::vector<const char*> names;
    for (auto& in : inputs) {
      auto bytes = in.tensor.mutable_bytes();
      values.push_back(Ort::Value::CreateTensor<float>(cpu, reinterpret_cast<float*>(bytes.data()),
                                                       static_cast<std::size_t>(in.tensor.numel()),
                                                       in.tensor.shape().data(), in.tensor.shape().size()));
      names.push_back(in.name.c_str());
    }
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<Ort::AllocatedStringPtr> output_names;
    std::vector<const char*> output_ptrs;
    for (std::size_t i = 0; i < session.GetOutputCount(); ++i) {
      output_names.push_back(session.GetOutputNameAllocated(i, allocator));
      output_ptrs.push_back(output_names.back().get());
    }
    auto outputs = session.Run(Ort::RunOptions{}, names.data(), values.data(), values.size(),
                               output_ptrs.data(), output_ptrs.size());
    double sum = 0;
    for (auto& out : outputs) {
      const auto info = out.GetTensorTypeAndShapeInfo();
      if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) continue;
      const float* data = out.GetTensorData<float>();
      for (std::size_t i = 0; i < info.GetElementCount(); ++i) sum += data[i];
    }
    std::printf("%s on %s: outputs sum %.6g\n", argv[1], ep.c_str(), sum);
  } catch (const Ort::Exception& e) {
    std::fprintf(stderr, "bare_ort_run: %s\n", e.what());
    return 1;
  }
  return 0;
}
