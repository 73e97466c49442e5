// guard/web_sources.h: the text of the web module (web/parity-guard.mjs) and of `parity accept`'s
// page script (web/accept-page.mjs), compiled in (the build generates the definitions from those
// files), so `parity accept` serves them without data files beside the binary.
#pragma once

#include <string_view>

namespace parity::guard {

extern const std::string_view kGuardModuleSource;
extern const std::string_view kAcceptPageSource;

}  // namespace parity::guard
