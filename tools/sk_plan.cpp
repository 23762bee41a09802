// tools/sk_plan.cpp: where step 10's stream-K plan splits, for a list of shapes and a grid of the split's
// thresholds, as CSV. Host code only (no GPU, no CUDA runtime): the decision is plan_stream_k itself
// (common/kernel/stream_k.hpp, what the kernels' host code calls), so tools/choose_sk_knobs.py, which runs this,
// weighs exactly the plan the kernel would launch.
//
//   ./build/sk_plan --shapes tools/sweep_shapes.csv --workers 66 [--pair-tile 256x256] [--min-share N]
//                   [--rounds N] [--min-saving 0,2,4,...,12,15,20] [--part-cost 0,1,2,3,4,6,8]
//
// --shapes FILE: CSV with columns m, n and k among others (tools/sweep_shapes.csv, docs/results/sweep.csv);
// blank and # lines are skipped, fields may be quoted. Each shape counts once, in the file's order; a shape the
// tiled rule refuses (step 10's: M, N multiples of 128, K of 64) is skipped with a note on stderr.
// --workers W: the persistent workers (CTA pairs) the kernel launches: 66 on the H200 (132 SMs).
// --pair-tile MxN: a worker's output tile, two CTAs of M/2 rows (Hopper's 256x256, the default); the tiles are
// counted as step10_stream_k/hgemm_sm90.cuh's prepare_variant does: ceil((m / (M/2)) / 2) * ceil(n / N), each of
// k / 64 K tiles. --min-share, --rounds and --full-split-max: the split's other knobs (the benchmark's
// --sk-min-share, --sk-rounds and --sk-full-split-max, same defaults and bounds).
//
// Output, one row per shape and (min_saving, part_cost): m,n,k,min_saving,part_cost, split (1: the plan splits),
// then the split the plan weighs, taken or not (stream_k_split): sk_tiles (0: nothing to split) and max_cost (its
// longest worker in K tiles, part_cost counted), and whole (step 9's longest list, every tile whole).
// Exit codes: 0 written, 2 bad usage or a bad shapes file (one line: the reason).
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/harness/cli.hpp"
#include "common/kernel/gemm.hpp"
#include "common/kernel/stream_k.hpp"

namespace {

// The grid without --min-saving and --part-cost.
const std::vector<int> kMinSavings = {0, 2, 4, 6, 8, 10, 12, 15, 20}, kPartCosts = {0, 1, 2, 3, 4, 6, 8};

std::string join(const std::vector<int>& values) {
  std::string out;
  for (const int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

std::string usage() {
  return "usage: sk_plan --shapes FILE --workers W [--pair-tile MxN (default 256x256)] [--min-share N] [--rounds N]\n"
         "               [--full-split-max P]\n"
         "               [--min-saving P,... (default " + join(kMinSavings) + ")] [--part-cost N,... (default " +
         join(kPartCosts) + ")]\n"
         "Prints, as CSV, whether step 10's stream-K plan (plan_stream_k) splits each shape of FILE (CSV with\n"
         "columns m, n, k) for every pair of --min-saving and --part-cost, on W workers (66 on the H200);\n"
         "tools/sk_plan.cpp's header says what each column means.\n";
}

/// The fields of one CSV line: commas separate, double quotes enclose a field ("" inside is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') out.back() += line[++i];
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

/// The distinct shapes of `path`, in its order.
std::vector<hg::Shape> read_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw hg::UsageError("--shapes: cannot read '" + path + "'");
  std::map<std::string, size_t> column;
  std::vector<hg::Shape> shapes;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos || text[0] == '#') continue;
    const std::vector<std::string> fields = csv_fields(text);
    const std::string where = path + ":" + std::to_string(line) + ": ";
    if (column.empty()) {
      for (size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      for (const char* c : {"m", "n", "k"})
        if (!column.count(c)) throw hg::UsageError(where + "the header lacks column '" + c + "'");
      continue;
    }
    const auto size = [&](const char* c) {
      const size_t i = column.at(c);
      if (i >= fields.size()) throw hg::UsageError(where + "no field " + c + " (" + std::to_string(fields.size()) +
                                                   " fields)");
      try {
        return hg::parse_bounded(c, fields[i], 1, hg::kMaxDim);
      } catch (const hg::UsageError& e) {
        throw hg::UsageError(where + e.what());
      }
    };
    const hg::Shape s{size("m"), size("n"), size("k")};
    bool seen = false;
    for (const hg::Shape& t : shapes) seen = seen || (t.m == s.m && t.n == s.n && t.k == s.k);
    if (!seen) shapes.push_back(s);
  }
  if (shapes.empty()) throw hg::UsageError("--shapes: no shapes in '" + path + "'");
  return shapes;
}

/// A knob's value, read as the benchmark's flag `sk_flag` reads it (its bounds); an error names both flags.
void read_knob(const std::string& flag, const std::string& sk_flag, const std::string& value, hg::StreamKKnobs& knobs) {
  try {
    hg::parse_stream_k_flag(sk_flag, value, knobs);
  } catch (const hg::UsageError& e) {
    throw hg::UsageError(flag + ": " + e.what());
  }
}

/// "0,5,10": each value read by read_knob, as `field` of the knobs.
std::vector<int> knob_list(const std::string& flag, const std::string& value, int hg::StreamKKnobs::*field) {
  std::vector<int> out;
  for (const std::string& item : csv_fields(value)) {
    if (item.empty()) throw hg::UsageError(flag + " expects numbers separated by commas, got '" + value + "'");
    hg::StreamKKnobs knobs;
    read_knob(flag, "--sk-" + flag.substr(2), item, knobs);
    out.push_back(knobs.*field);
  }
  return out;
}

int run(int argc, char** argv) {
  std::string shapes_file;
  int workers = 0, pair_m = 256, pair_n = 256;
  hg::StreamKKnobs knobs;  // min_share and rounds; the grid replaces the other two
  std::vector<int> min_savings = kMinSavings, part_costs = kPartCosts;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::printf("%s", usage().c_str());
      return 0;
    }
    if (i + 1 >= argc) throw hg::UsageError(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--shapes") {
      shapes_file = value;
    } else if (flag == "--workers") {
      workers = int(hg::parse_bounded(flag, value, 1, 1 << 20));
    } else if (flag == "--pair-tile") {
      char tail = 0;
      if (std::sscanf(value.c_str(), "%dx%d%c", &pair_m, &pair_n, &tail) != 2 || pair_m < 2 || pair_m % 2 != 0 ||
          pair_n < 1)
        throw hg::UsageError("--pair-tile expects MxN with M even (two CTAs of M/2 rows), got '" + value + "'");
    } else if (flag == "--min-share" || flag == "--rounds" || flag == "--full-split-max") {
      read_knob(flag, "--sk-" + flag.substr(2), value, knobs);
    } else if (flag == "--min-saving") {
      min_savings = knob_list(flag, value, &hg::StreamKKnobs::min_saving_pct);
    } else if (flag == "--part-cost") {
      part_costs = knob_list(flag, value, &hg::StreamKKnobs::part_cost);
    } else {
      throw hg::UsageError("unknown option '" + flag + "'");
    }
  }
  if (shapes_file.empty() || workers == 0) throw hg::UsageError("--shapes and --workers are required");

  std::printf("m,n,k,min_saving,part_cost,split,sk_tiles,max_cost,whole\n");
  for (const hg::Shape& s : read_shapes(shapes_file)) {
    const std::string refused = hg::check_shape(s, hg::ShapeRule::kTiled, "step 10");
    if (!refused.empty()) {
      std::fprintf(stderr, "sk_plan: skipped %lldx%lldx%lld: %s\n", (long long)s.m, (long long)s.n, (long long)s.k,
                   refused.c_str());
      continue;
    }
    // As prepare_variant counts them: pair rows of two CTA tiles, times the tiles along N.
    const int tiles = hg::ceil_div(int(s.m) / (pair_m / 2), 2) * hg::ceil_div(int(s.n), pair_n);
    const int k_tiles = int(s.k / hg::kBlkK);
    const hg::StreamKPlan weighed = hg::stream_k_split(tiles, k_tiles, workers, knobs.min_share, knobs.rounds);
    const int whole = weighed.whole_iters();
    for (const int min_saving : min_savings)
      for (const int part_cost : part_costs) {
        hg::StreamKKnobs candidate = knobs;
        candidate.min_saving_pct = min_saving;
        candidate.part_cost = part_cost;
        const bool split = hg::plan_stream_k(tiles, k_tiles, workers, candidate).sk_tiles > 0;
        const bool any = weighed.sk_workers > 0;  // else there is nothing to split
        std::printf("%lld,%lld,%lld,%d,%d,%d,%d,%d,%d\n", (long long)s.m, (long long)s.n, (long long)s.k,
                    min_saving, part_cost, split ? 1 : 0, any ? weighed.sk_tiles : 0,
                    any ? weighed.max_cost(part_cost) : whole, whole);
      }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const hg::UsageError& e) {
    std::fprintf(stderr, "sk_plan: error: %s (run with --help for usage)\n", e.what());
    return 2;
  }
}
