#include "isolate/worker.h"

#include <cstdlib>
#include <exception>
#include <new>

#include "backend/backend.h"
#include "core/json_io.h"
#include "isolate/frame_io.h"
#include "isolate/memory_cap.h"
#include "isolate/protocol.h"

namespace parity::isolate {
namespace {

void send_error(int fd, Error e, const std::string& label) {
  if (e.backend.empty()) e.backend = label;
  (void)write_frame(fd, FrameType::error, error_to_json(e).dump());
}

// The backend reads PARITY_TEST_FAULT itself; the parent decides which worker gets which fault
// and passes it in the request, so the environment is rewritten here to match.
void apply_test_fault(const WorkerRequest& req) {
  if (req.test_fault) {
    const std::string spec = test_fault_to_string(*req.test_fault);
    ::setenv("PARITY_TEST_FAULT", spec.c_str(), 1);
  } else {
    ::unsetenv("PARITY_TEST_FAULT");
  }
}

int serve(int request_fd, int reply_fd, Stage& current) {
  auto frame = read_frame_blocking(request_fd);
  if (!frame.ok() || frame->type != FrameType::request) return 3;
  auto req = decode_request(frame->text());
  if (!req.ok()) {
    send_error(reply_fd, req.error(), "");
    return 0;
  }
  std::vector<NamedTensor*> slots;  // every input of every set, in frame order
  for (auto& input : req->run.inputs) slots.push_back(&input);
  for (auto& set : req->run.more_inputs)
    for (auto& input : set) slots.push_back(&input);
  for (NamedTensor* input : slots) {
    auto tf = read_frame_blocking(request_fd);
    if (!tf.ok() || tf->type != FrameType::tensor) return 3;
    auto t = decode_tensor(std::move(tf->payload));
    if (!t.ok()) {
      send_error(reply_fd, t.error(), req->spec.label);
      return 0;
    }
    *input = std::move(t).value();
  }
  apply_test_fault(*req);

  auto backend = backend::create_backend(req->spec);
  if (!backend.ok()) {
    send_error(reply_fd, backend.error(), req->spec.label);
    return 0;
  }
  auto observe = [reply_fd, &current](Stage stage) {
    current = stage;
    (void)write_frame(reply_fd, FrameType::stage, std::string(to_string(stage)));
  };
  auto result = (*backend)->run(req->run, observe);
  if (!result.ok()) {
    send_error(reply_fd, result.error(), req->spec.label);
    return 0;
  }
  for (const auto& out : result->outputs)
    if (!write_tensor_frame(reply_fd, out).ok()) return 3;
  for (const auto& set : result->more_outputs)
    for (const auto& out : set)
      if (!write_tensor_frame(reply_fd, out).ok()) return 3;
  (void)write_frame(reply_fd, FrameType::result, encode_result(*result));
  return 0;
}

}  // namespace

int worker_main(int request_fd, int reply_fd) {
  // Exceptions must not escape as std::terminate (that would read as a crash): out-of-memory is
  // its own kind, anything else is an internal error with its message.
  Stage current = Stage::none;
  note_crashes_at_memory_cap();  // a crash at --max-memory reads as capped, not as SIGSEGV
  try {
    return serve(request_fd, reply_fd, current);
  } catch (const std::bad_alloc&) {
    send_error(reply_fd,
               make_error(ErrorKind::oom, current, "std::bad_alloc in worker",
                          "the model needs more memory than --max-memory allows"),
               "");
  } catch (const std::exception& e) {
    send_error(reply_fd, make_error(ErrorKind::internal, current, e.what()), "");
  }
  return 0;
}

}  // namespace parity::isolate
