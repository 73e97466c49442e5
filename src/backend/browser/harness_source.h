// backend/browser/harness_source.h: the text of harness.mjs, compiled in (the build generates
// the definition from src/backend/browser/harness.mjs), so the binary needs no data files.
#pragma once

#include <string_view>

namespace parity::backend::browser {

extern const std::string_view kHarnessSource;

}  // namespace parity::backend::browser
