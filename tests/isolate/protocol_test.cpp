#include "isolate/protocol.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "isolate/frame_io.h"

namespace parity::isolate {
namespace {

TEST(Protocol, RequestRoundTripsSpecAndFault) {
  backend::BackendSpec spec;
  spec.label = "old";
  spec.ep = "webgpu";
  spec.ort_lib = "/x/libonnxruntime.so.1";
  spec.opt_level = "basic";
  spec.allow_fallback = false;
  spec.provider_options = {{"a", "1"}};
  spec.session_config = {{"session.x", "y"}};
  backend::RunRequest run;
  run.model_path = "/m.onnx";
  run.inputs.resize(2);
  run.more_inputs = {std::vector<NamedTensor>(2), std::vector<NamedTensor>(2)};
  auto decoded =
      decode_request(encode_request(spec, run, backend::TestFault{Stage::run, backend::FaultAction::hang}));
  ASSERT_TRUE(decoded.ok()) << decoded.error().describe();
  EXPECT_EQ(decoded->spec.label, "old");
  EXPECT_EQ(decoded->spec.opt_level, "basic");
  EXPECT_FALSE(decoded->spec.allow_fallback);
  EXPECT_EQ(decoded->spec.provider_options, spec.provider_options);
  EXPECT_EQ(decoded->spec.session_config, spec.session_config);
  EXPECT_EQ(decoded->run.inputs.size(), 2u);
  ASSERT_EQ(decoded->run.more_inputs.size(), 2u);  // the worker then reads 2 + 2 + 2 tensor frames
  EXPECT_EQ(decoded->run.more_inputs[1].size(), 2u);
  ASSERT_TRUE(decoded->test_fault.has_value());
  EXPECT_EQ(decoded->test_fault->stage, Stage::run);
  EXPECT_EQ(decoded->test_fault->action, backend::FaultAction::hang);
}

TEST(Protocol, BrowserFieldsAndPropertiesRoundTrip) {
  backend::BackendSpec spec;
  spec.label = "old";
  spec.ep = "web-jsep";
  spec.ort_web = "1.22.0";
  spec.browser = "/opt/chromium";
  spec.browser_args = {"--use-vulkan"};
  spec.log_level = "verbose";
  spec.check_features = false;
  auto decoded = decode_request(
      encode_request(spec, {}, backend::TestFault{Stage::run, backend::FaultAction::device_lost}));
  ASSERT_TRUE(decoded.ok()) << decoded.error().describe();
  EXPECT_EQ(decoded->spec.ort_web, "1.22.0");
  EXPECT_EQ(decoded->spec.browser, "/opt/chromium");
  EXPECT_EQ(decoded->spec.browser_args, spec.browser_args);
  EXPECT_EQ(decoded->spec.log_level, "verbose");
  EXPECT_FALSE(decoded->spec.check_features);
  EXPECT_EQ(decoded->test_fault->action, backend::FaultAction::device_lost);

  backend::RunResult r;
  r.properties = {{"placement", "JsExecutionProvider:3"}, {"adapter.features", "subgroups"}};
  r.more_outputs = {std::vector<NamedTensor>(1), std::vector<NamedTensor>(1)};
  auto back = decode_result(encode_result(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->properties, r.properties);
  ASSERT_EQ(back->more_outputs.size(), 2u);  // sized: the reader fills them from the tensor frames
  EXPECT_EQ(back->more_outputs[0].size(), 1u);
}

TEST(Protocol, RejectsOtherVersionsAndGarbage) {
  EXPECT_FALSE(decode_request("{\"protocol\": 99}").ok());
  EXPECT_FALSE(decode_request("not json").ok());
  EXPECT_FALSE(decode_tensor(std::vector<std::byte>(2)).ok());
  std::vector<std::byte> lying(8);  // a meta length larger than the frame
  const uint32_t len = 100;
  std::memcpy(lying.data() + 4, &len, 4);
  EXPECT_FALSE(decode_tensor(lying).ok());
}

// The payload as the receiver reads it: what write_tensor_frame sends, through a real socket.
std::vector<std::byte> sent(const NamedTensor& t) {
  int fd[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0);
  std::thread writer([&] { EXPECT_TRUE(write_tensor_frame(fd[0], t).ok()); });
  auto frame = read_frame_blocking(fd[1]);
  writer.join();
  ::close(fd[0]);
  ::close(fd[1]);
  EXPECT_TRUE(frame.ok());
  EXPECT_EQ(frame->type, FrameType::tensor);
  return frame.ok() ? std::move(frame->payload) : std::vector<std::byte>{};
}

TEST(Protocol, TensorsTravelAsRawBytesAndStayWhereTheyLanded) {
  std::vector<float> values(3 << 18);  // 3 MiB: more than a socket buffer holds
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f - 7.0f;
  NamedTensor t{"y", Tensor::from_floats({3, 1 << 18}, values)};
  std::vector<std::byte> payload = sent(t);
  const std::byte* landed = payload.data();
  auto back = decode_tensor(std::move(payload));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(*back, t);
  EXPECT_EQ(back->tensor.bytes().data(), landed);  // the receiver's buffer became the tensor: no copy
  NamedTensor s{"s", Tensor::from_strings({2}, {"a", "bc"})};
  auto back_s = decode_tensor(sent(s));
  ASSERT_TRUE(back_s.ok());
  EXPECT_EQ(*back_s, s);
  NamedTensor empty{"e", Tensor::from_floats({0, 4}, {})};
  auto back_e = decode_tensor(sent(empty));
  ASSERT_TRUE(back_e.ok());
  EXPECT_EQ(*back_e, empty);
}

}  // namespace
}  // namespace parity::isolate
