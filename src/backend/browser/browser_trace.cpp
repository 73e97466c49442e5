#include "backend/browser/browser_trace.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace parity::backend::browser {
namespace {

struct TraceFile {
  std::FILE* file = nullptr;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mu;

  TraceFile() {
    if (const char* path = std::getenv("PARITY_BROWSER_TRACE"); path && *path) file = std::fopen(path, "a");
  }
  ~TraceFile() {
    if (file) std::fclose(file);
  }
};

TraceFile& trace_file() {
  static TraceFile t;  // a process-wide diagnostic sink, opened on first use
  return t;
}

}  // namespace

bool trace_enabled() { return trace_file().file != nullptr; }

void trace(std::string_view source, std::string_view text) {
  TraceFile& t = trace_file();
  if (!t.file) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t.start).count();
  std::lock_guard<std::mutex> lock(t.mu);
  std::fprintf(t.file, "%.6f %d %.*s %.*s\n", s, static_cast<int>(::getpid()),
               static_cast<int>(source.size()), source.data(), static_cast<int>(text.size()), text.data());
  std::fflush(t.file);
}

}  // namespace parity::backend::browser
