// tests/doctest_main.cpp: doctest's main() for the CPU unit tests (hg_unit_tests).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
