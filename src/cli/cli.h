// cli/cli.h: the verb table and the entry point of the `parity` binary.
#pragma once

namespace parity::cli {

// Parses argv, runs one verb and returns its exit code (0 ok, 1 finding, 2 bad invocation,
// 3 target could not run). Never calls exit().
int main(int argc, char** argv);

}  // namespace parity::cli
