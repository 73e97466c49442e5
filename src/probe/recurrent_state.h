// probe/recurrent_state.h: which outputs are a recurrent network's state rather than results.
//
// An LSTM/GRU/RNN model (Silero VAD: input `state`, output `stateN`; `h0`/`hn`, `c0`/`cn`) hands
// its hidden state back to the caller, who feeds it into the next call. Such a tensor often has a
// class-score shape ([2, 1, 128]: rank >= 2, last dim in range), but its argmax means nothing, so
// reports must not show top-1/top-5 agreement for it.
//
// The rule is the feedback itself, read from the run: an output is state when some graph input
// has the same element type and the same concrete shape as the output in this run, and the two
// names pair up: one is a prefix of the other ("state"/"stateN", "h"/"h_out"), or they are equal
// once one trailing marker is dropped from each ("h0"/"hn", "state_in"/"state_out"; markers:
// 0, n, in, out, new, next, prev, old, each optionally after '_', '.' or '-'). Names compare
// case-insensitively. Shape alone is not enough (an autoencoder's output has its input's shape).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parity/dtype.h"
#include "parity/tensor.h"

namespace parity::probe {

struct FedInput {
  std::string name;
  DType dtype = DType::undefined;
  Shape shape;
};

// True when output `name` of `dtype` and `shape` is state fed back through one of `inputs`.
bool is_recurrent_state(std::string_view name, DType dtype, const Shape& shape,
                        const std::vector<FedInput>& inputs);

}  // namespace parity::probe
