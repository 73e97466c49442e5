// isolate/worker.h: the worker side of isolation (`parity worker`).
#pragma once

namespace parity::isolate {

// Serves one request: reads it from `request_fd`, runs the backend, writes stage frames, then
// outputs + result or one error frame to `reply_fd`. Returns the process exit code (0 when a
// reply was written, whether success or a typed error; 3 when the protocol itself failed).
// Crashes inside the backend kill this process; the parent turns that into a typed error.
int worker_main(int request_fd = 3, int reply_fd = 4);

}  // namespace parity::isolate
