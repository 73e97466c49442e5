// Which outputs are recurrent state (no top-1/top-5 for them): the pairing rule of recurrent_state.h.
#include "probe/recurrent_state.h"

#include <gtest/gtest.h>

namespace parity::probe {
namespace {

const Shape kState{2, 1, 128};

TEST(RecurrentState, FedBackOutputsPairWithTheirInputs) {
  // Silero VAD v5: input `state`, output `stateN`.
  EXPECT_TRUE(is_recurrent_state("stateN", DType::float32, kState, {{"state", DType::float32, kState}}));
  // LSTM conventions: h0/hn, c0/cn; _in/_out.
  EXPECT_TRUE(is_recurrent_state("hn", DType::float32, kState, {{"h0", DType::float32, kState}}));
  EXPECT_TRUE(is_recurrent_state("cn", DType::float32, kState, {{"c0", DType::float32, kState}}));
  EXPECT_TRUE(
      is_recurrent_state("state_out", DType::float32, kState, {{"state_in", DType::float32, kState}}));
}

TEST(RecurrentState, ShapeOrNameAloneIsNotState) {
  // An autoencoder's output has its input's shape, but the names do not pair.
  EXPECT_FALSE(is_recurrent_state("logits", DType::float32, {1, 8}, {{"x", DType::float32, {1, 8}}}));
  // The names pair but the shape (or type) differs: not the tensor fed back.
  EXPECT_FALSE(
      is_recurrent_state("stateN", DType::float32, {2, 4, 128}, {{"state", DType::float32, kState}}));
  EXPECT_FALSE(is_recurrent_state("stateN", DType::float16, kState, {{"state", DType::float32, kState}}));
  EXPECT_FALSE(is_recurrent_state("hn", DType::float32, kState, {{"c0", DType::float32, kState}}));
  EXPECT_FALSE(is_recurrent_state("output", DType::float32, kState, {{"input", DType::float32, kState}}));
}

}  // namespace
}  // namespace parity::probe
