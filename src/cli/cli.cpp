#include "cli/cli.h"

#include <cstdio>

namespace parity::cli {

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  std::puts("parity: under construction");
  return 0;
}

}  // namespace parity::cli
