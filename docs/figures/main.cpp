// docs/figures/main.cpp: draws the figures of the documentation as SVG files, and writes its generated tables
// as HTML fragments, all computed from the code. Each page's figures and tables live in a file of their own
// (docs/figures/figures.hpp lists them); this file only writes them.
//
// Built by docs/CMakeLists.txt as a small host program and run by the `docs` target before Doxygen:
//   hg_docs_figures <figures-dir> <fragments-dir>
//                                     writes every figure below into <figures-dir> (Doxygen's IMAGE_PATH)
//                                     and every table into <fragments-dir> (on Doxygen's EXAMPLE_PATH)
//   hg_docs_figures --list            prints the file names, one a line
// Nothing is drawn or typed by hand: each figure and table evaluates the real functions of common/ (the
// swizzle and the TMEM addressing of common/kernel/descriptors.hpp, the tile scheduler of common/kernel/scheduler.hpp,
// the stream-K plan of common/kernel/stream_k.hpp, the tile choice of common/kernel/tile_choice.hpp), the kernels'
// constants (the .cu files include their headers),
// the host models of the protocols that the CPU tests also run (common/model/), or
// the Hopper epilogue's fragment indexing (hg::wgmma_m64nNk16_acc_owner), and checks what it shows before writing it;
// a failed check exits with 1, so a code change that breaks a figure's or a table's claim breaks the docs
// build.
//
// Adding a figure: write `bool draw_xxx(Svg& svg)` in the page's file (return false after printing why if a
// check fails), declare it in figures.hpp and add one line to kFigures there. Pages show it with
// `\image html xxx.svg "caption"`.
// Adding a table: write `bool table_xxx(std::string& html)` (build it with HtmlTable) the same way, with one
// line in kFragments. Pages show it with `\htmlinclude xxx.html`.
#include <cstdio>
#include <fstream>
#include <string>

#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace {

using namespace hg::figures;

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "docs_figures: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const Figure& f : kFigures) std::printf("%s\n", f.file);
    for (const Fragment& f : kFragments) std::printf("%s\n", f.file);
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <figures-dir> <fragments-dir> | --list\n", argv[0]);
    return 2;
  }
  const std::string figures = argv[1], fragments = argv[2];
  for (const Figure& f : kFigures) {
    Svg svg;
    if (!f.draw(svg)) {
      std::fprintf(stderr, "docs_figures: %s: a check on the code failed (see above)\n", f.file);
      return 1;
    }
    if (!write_file(figures + "/" + f.file, svg.str())) return 1;
  }
  for (const Fragment& f : kFragments) {
    std::string html;
    if (!f.write(html)) {
      std::fprintf(stderr, "docs_figures: %s: a check on the code failed (see above)\n", f.file);
      return 1;
    }
    if (!write_file(fragments + "/" + f.file, html)) return 1;
  }
  return 0;
}

