#include "tools/tbprof/cli.h"

int main(int argc, char** argv) { return tbprof::cli::RunMain(argc, argv); }
