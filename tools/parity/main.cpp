// parity: the command-line tool. All logic lives in src/cli; this only forwards argv.
#include "cli/cli.h"

int main(int argc, char** argv) { return parity::cli::main(argc, argv); }
