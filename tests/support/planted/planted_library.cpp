// A library a hostile repro folder names as its ONNX Runtime (ort_lib): loading it at all runs this
// constructor, which leaves PATH.ran beside the library, so a test can tell whether Parity loaded
// it. It has no OrtGetApiBase: a run that loads it fails with a typed error naming it.
#include <dlfcn.h>

#include <fstream>
#include <string>

namespace {

__attribute__((constructor)) void planted_constructor() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&planted_constructor), &info) != 0 && info.dli_fname != nullptr)
    std::ofstream(std::string(info.dli_fname) + ".ran") << "loaded\n";
}

}  // namespace
