// common/harness/bench.cpp: the benchmark tools' shared run (see bench.hpp).
#include "common/harness/bench.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/harness/order.hpp"
#include "common/harness/reference.cuh"

namespace hg {
namespace {

/// First line of a command's output ("" if it cannot run): the driver version and clocks via nvidia-smi.
std::string shell_line(const char* cmd) {
  std::string line;
  if (FILE* f = popen(cmd, "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, f)) line = buf;
    pclose(f);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool same_shape(const Shape& a, const Shape& b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

std::string shape_name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// "a, b and c"
std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// --steps a,b: the names as given, each one of `choices`, none twice (the tool times them in the registry's order).
std::vector<std::string> parse_steps(const std::string& value, const std::vector<std::string>& choices) {
  std::vector<std::string> steps;
  for (const std::string& name : split(value, ',')) {
    if (name.empty()) throw UsageError("--steps expects step names separated by commas, got '" + value + "'");
    if (std::find(choices.begin(), choices.end(), name) == choices.end())
      throw UsageError("--steps: no step '" + name + "' to time; the choices: " + join_names(choices));
    if (std::find(steps.begin(), steps.end(), name) != steps.end())
      throw UsageError("--steps names " + name + " twice");
    steps.push_back(name);
  }
  if (steps.empty()) throw UsageError("--steps expects step names separated by commas, got ''");
  return steps;
}

// Which contestants time shape `s` (by name) and which skip it, grouped by their rule's reason.
struct ShapeTakers {
  std::vector<std::string> timed, reasons;
  std::vector<std::vector<std::string>> skipping;  // [reason]: the contestants that skip for it
};

ShapeTakers shape_takers(const Shape& s, const std::vector<Contestant>& contestants) {
  ShapeTakers out;
  for (const Contestant& c : contestants) {
    const std::string why = check_shape(s, c.rule, "this kernel");
    if (why.empty()) {
      out.timed.push_back(c.name);
      continue;
    }
    const size_t at = size_t(std::find(out.reasons.begin(), out.reasons.end(), why) - out.reasons.begin());
    if (at == out.reasons.size()) {
      out.reasons.push_back(why);
      out.skipping.emplace_back();
    }
    out.skipping[at].push_back(c.name);
  }
  return out;
}

// "; skipped by a and b: why; skipped by c: why"
std::string skip_text(const ShapeTakers& takers) {
  std::string out;
  for (size_t r = 0; r < takers.reasons.size(); ++r)
    out += "; skipped by " + join_names(takers.skipping[r]) + ": " + takers.reasons[r];
  return out;
}

// A CSV value as written: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_value(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<Shape> default_bench_shapes() {
  return {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096}, {16384, 4096, 1024}, {5120, 5120, 2048},
          {2304, 4608, 8192}};
}

std::string bench_usage(const std::string& tool, const std::vector<std::string>& step_names) {
  const std::string indent(std::string("usage: ").size() + tool.size() + 1, ' ');
  const bool steps = !step_names.empty();
  std::string u =
      "usage: " + tool + " [--shape MxNxK]... [--iters N (>= 50, default 200)] [--warmup N (default 10)]\n" +
      indent + "[--rounds R (default 20; iters must be a multiple)] [--settle-ms T (default 50, 1 to 10000)]\n" +
      indent + "[--seed S] [--out DIR (default bench_out)] [--sk-min-share N] [--sk-rounds N] [--sk-min-saving P]\n" +
      indent + "[--sk-part-cost N] [--sk-full-split-max P]\n" +
      (steps ? indent + "[--sweep FILE] [--steps NAME,...] [--plan] [--sk-forced] [--tiles MxN,...]\n"
             : std::string()) +
      "Each kernel gets iters timed launches, spread over R rounds in which all kernels take turns, by two\n"
      "methods: burst (no settle launches) and sustained (each turn starts with about T ms of untimed\n"
      "launches of that kernel, so that a power-capped GPU times it at the clock it can hold).\n"
      "The turns follow a balanced order: the first kernel opens every round and the others follow in a\n"
      "different order each round, so that over a cycle of rounds (n - 1 for an odd number n of kernels,\n"
      "2(n - 1) for an even n > 2) every kernel's turn follows every other kernel's equally often. R is not\n"
      "rounded to whole cycles; the output's 'kernel order' line says how evenly R rounds spread them.\n"
      "Default shapes: 4096x4096x4096, 8192x8192x8192, 4096x14336x4096 (an LLM MLP projection),\n"
      "16384x4096x1024 (short K, 4096 output tiles: where a persistent grid can pay), and two whose last\n"
      "round of 256 x 256 tiles is short on 66 CTA pairs: 5120x5120x2048 (400 tiles: 6 rounds and 4 over)\n"
      "and 2304x4608x8192 (162 tiles: 2 rounds and 30 over), where step 10 splits the last round.\n"
      "The --sk-* flags set the stream-K split of the steps that have one, as in their verify binaries:\n" +
      stream_k_usage();
  if (!steps) return u;
  u += "--sweep FILE: the shapes of FILE instead (tools/sweep_shapes.csv: layers of published models), CSV with\n"
       "  the columns model,layer,m,n,k,tiled,source (# starts a comment line). A shape a kernel's rule refuses\n"
       "  is skipped for that kernel with a note on stderr (cuBLAS runs every shape). Bad content exits 2 with\n"
       "  FILE:LINE and the reason. Writes <out>/sweep_run.csv (the ladder's columns, then model, layer,\n"
       "  source and skipped), sweep_run.json and sweep_samples.csv; tools/sweep_summary.py combines runs.\n"
       "--steps NAME,...: time these steps instead of the ladder (cuBLAS always), in the registry's order\n"
       "  whatever the order named (the first of them opens every round), named as in steps.json:";
  size_t width = 200;  // the names wrapped into lines of about 100 characters
  for (size_t i = 0; i < step_names.size(); ++i) {
    const std::string item = step_names[i] + (i + 1 < step_names.size() ? "," : "");
    if (width + item.size() > 100) {
      u += "\n ";
      width = 1;
    }
    u += " " + item;
    width += item.size() + 1;
  }
  u += "\n"
       "--plan: print each shape's GFLOP and which kernels time or skip it, the launch and FLOP totals, and\n"
       "  exit without touching the GPU.\n"
       "--sk-forced: after each step that has the stream-K knobs, time it once more as <step>+split, with the\n"
       "  run's knobs but --sk-min-saving 0, --sk-part-cost 0 and --sk-full-split-max 1000: the split wherever\n"
       "  the plan can make one (tools/choose_sk_knobs.py weighs it against the step without a split).\n"
       "--tiles MxN,...: after each step that has a tile menu (--tile), time it once more per tile listed, forced,\n"
       "  as <step>+MxN, with the run's stream-K knobs (tools/choose_tile_price.py weighs the heuristic's choice\n"
       "  against them). A tile the kernel's menu lacks exits 2 with the menu.\n";
  return u;
}

std::vector<SweepShape> parse_sweep(std::istream& in, const std::string& name) {
  static const std::vector<std::string> kColumns = {"model", "layer", "m", "n", "k", "tiled", "source"};
  const auto fail = [&](int line, const std::string& why) {  // line 0: the file as a whole
    throw UsageError(name + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why);
  };
  std::map<std::string, size_t> column;  // name -> field index
  std::vector<SweepShape> rows;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> fields = split(t, ',');
    for (std::string& f : fields) f = trim(f);
    if (column.empty()) {  // the header
      for (size_t i = 0; i < fields.size(); ++i) {
        if (std::find(kColumns.begin(), kColumns.end(), fields[i]) == kColumns.end())
          fail(line, "unknown column '" + fields[i] + "' (the columns: " + join_names(kColumns) + ")");
        if (!column.emplace(fields[i], i).second) fail(line, "column '" + fields[i] + "' appears twice");
      }
      for (const std::string& c : kColumns)
        if (!column.count(c))
          fail(line, "the header lacks column '" + c + "' (the columns: " + join_names(kColumns) + ")");
      continue;
    }
    if (fields.size() != column.size())
      fail(line, std::to_string(fields.size()) + " fields, the header names " + std::to_string(column.size()) +
                     " (fields are not quoted and hold no commas: write ';' instead)");
    const auto field = [&](const char* c) -> const std::string& { return fields[column.at(c)]; };
    for (const std::string& c : kColumns)
      if (field(c.c_str()).empty()) fail(line, c + " is empty");
    if (text.find('"') != std::string::npos) fail(line, "fields are not quoted: remove the '\"'");
    SweepShape row;
    row.line = line;
    row.model = field("model");
    row.layer = field("layer");
    row.source = field("source");
    try {
      row.shape = {parse_bounded("m", field("m"), 1, kMaxDim), parse_bounded("n", field("n"), 1, kMaxDim),
                   parse_bounded("k", field("k"), 1, kMaxDim)};
    } catch (const UsageError& e) {
      fail(line, e.what());
    }
    const std::string& tiled = field("tiled");
    if (tiled != "yes" && tiled != "no") fail(line, "tiled must be yes or no, got '" + tiled + "'");
    const std::string refused = check_shape(row.shape, ShapeRule::kTiled, "the tiled rule");
    if (tiled == "yes" && !refused.empty()) fail(line, "tiled says yes, but " + refused);
    if (tiled == "no" && refused.empty())
      fail(line, "tiled says no, but the tiled rule admits M=" + std::to_string(row.shape.m) + " N=" +
                     std::to_string(row.shape.n) + " K=" + std::to_string(row.shape.k) + " (mark it yes)");
    for (const SweepShape& r : rows)
      if (same_shape(r.shape, row.shape))
        fail(line, shape_name(row.shape) + " is already on line " + std::to_string(r.line) + " (" + r.model + " " +
                       r.layer + "): list each shape once and name every model it serves in that row");
    rows.push_back(row);
  }
  if (column.empty()) fail(0, "no header line (the columns: " + join_names(kColumns) + ")");
  if (rows.empty()) fail(0, "no shapes below the header");
  return rows;
}

std::vector<SweepShape> read_sweep_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--sweep: cannot read '" + path + "': " + std::strerror(errno));
  return parse_sweep(in, path);
}

BenchOptions parse_bench_options(int argc, char** argv, const std::vector<std::string>& step_names) {
  BenchOptions a;
  const bool takes_steps = !step_names.empty();
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") throw UsageError("help");
    if (flag == "--plan" || flag == "--sk-forced") {  // switches: no value
      if (!takes_steps) throw UsageError("unknown option '" + flag + "'");
      (flag == "--plan" ? a.plan : a.sk_forced) = true;
      continue;
    }
    if (i + 1 >= argc) throw UsageError(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--shape") {
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(value.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
          m > kMaxDim || n > kMaxDim || k > kMaxDim)
        throw UsageError("--shape expects MxNxK with sizes from 1 to 1048576, got '" + value + "'");
      a.shapes.push_back(Shape{m, n, k});  // check_bench_shapes: a kernel timed must take it
    } else if (flag == "--iters") {
      a.iters = int(parse_bounded(flag, value, 50, 100000));
    } else if (flag == "--warmup") {
      a.warmup = int(parse_bounded(flag, value, 0, 100000));
    } else if (flag == "--rounds") {
      a.rounds = int(parse_bounded(flag, value, 1, 1000));
    } else if (flag == "--settle-ms") {
      a.settle_ms = double(parse_bounded(flag, value, 1, 10000));  // burst is the other method
    } else if (flag == "--seed") {
      a.seed = uint64_t(parse_bounded(flag, value, 0, int64_t(1) << 62));
    } else if (flag == "--out") {
      a.out = value;
    } else if (flag == "--sweep" && takes_steps) {
      if (!a.sweep_file.empty()) throw UsageError("--sweep given twice: one file lists the shapes");
      a.sweep_file = value;
      a.sweep = read_sweep_file(value);
    } else if (flag == "--tiles" && takes_steps) {
      if (!a.tiles.empty()) throw UsageError("--tiles given twice: name every tile in one list");
      for (const std::string& item : split(value, ',')) {
        if (item == "auto") throw UsageError("--tiles lists forced tiles (MxN); the step itself is the auto choice");
        try {
          a.tiles.push_back(parse_tile(item));
        } catch (const UsageError& e) {
          throw UsageError(std::string("--tiles: ") + e.what());
        }
        for (size_t j = 0; j + 1 < a.tiles.size(); ++j)
          if (a.tiles[j].m == a.tiles.back().m && a.tiles[j].n == a.tiles.back().n)
            throw UsageError("--tiles names " + item + " twice");
      }
    } else if (flag == "--steps" && takes_steps) {
      if (!a.steps.empty()) throw UsageError("--steps given twice: name every step in one list");
      a.steps = parse_steps(value, step_names);
    } else if (parse_stream_k_flag(flag, value, a.stream_k)) {
      // read into a.stream_k
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
  }
  if (a.iters % a.rounds != 0)
    throw UsageError("--iters " + std::to_string(a.iters) + " is not a multiple of --rounds " +
                     std::to_string(a.rounds));
  if (!a.sweep_file.empty()) {
    if (!a.shapes.empty()) throw UsageError("--shape and --sweep exclude each other: the sweep file lists the shapes");
    for (const SweepShape& row : a.sweep) a.shapes.push_back(row.shape);
  }
  if (a.shapes.empty()) a.shapes = default_bench_shapes();
  return a;
}

void check_bench_shapes(const BenchOptions& opt, const std::vector<Contestant>& contestants) {
  if (!opt.sweep_file.empty()) return;  // a sweep's row that no kernel takes is cuBLAS's alone (its tiled column)
  for (const Shape& s : opt.shapes) {
    const ShapeTakers takers = shape_takers(s, contestants);
    if (takers.timed.empty())
      throw UsageError("--shape " + shape_name(s) + ": no kernel timed takes it" + skip_text(takers));
  }
}

void prepare_bench_run(const BenchOptions& opt) {
  for (const Shape& s : opt.shapes) {
    const std::string too_big = check_memory(s);
    if (!too_big.empty()) throw UsageError(too_big);
  }
  make_out_dir(opt.out);
}

void make_out_dir(const std::string& out) {
  // With its parents (mkdir -p): the documented loops write to build/<name>/<run> in a fresh build folder.
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec || !std::filesystem::is_directory(out))
    throw UsageError("--out: cannot create '" + out + "': " + (ec ? ec.message() : "not a directory"));
}

double dense_fp16_peak(const cudaDeviceProp& p) {
  const std::string name = p.name;
  if (p.major == 9 && p.minor == 0) {
    if (name.find("PCIe") != std::string::npos) return 756.5;   // H100 PCIe
    if (name.find("NVL") != std::string::npos) return 835.5;    // H100 NVL
    return 989.4;                                               // H100 SXM, H200 SXM
  }
  if (p.major == 10 && p.minor == 0) return 2250.0;  // B200 (dense FP16/BF16)
  return 0.0;
}

void BenchProgress::operator()(const Shape& s, const char* who, const char* what) {
  std::fprintf(stderr, "[%2d/%d] %lldx%lldx%lld %-22s %s\n", ++done, total, (long long)s.m, (long long)s.n,
               (long long)s.k, who, what);
}

bool bench_shape(const Shape& s, const std::vector<Contestant>& contestants, const BenchOptions& opt,
                 const Device& dev, cublasHandle_t blas, cudaStream_t stream, BenchProgress& progress,
                 std::vector<BenchRow>& rows, std::vector<BenchSample>& samples) {
  const double peak = dense_fp16_peak(dev.prop);
  const double settle[] = {0.0, opt.settle_ms};  // the two methods, burst then sustained
  bool all_verified = true;
  // One verification problem (random-normal, tolerance check) and one rotation of timing inputs per shape.
  DeviceBuffer<__half> a(s.m * s.k), b(s.n * s.k), d(s.m * s.n);
  fill_matrix(a.get(), a.count(), opt.seed, InitMode::kRandom, 0, stream);
  fill_matrix(b.get(), b.count(), opt.seed, InitMode::kRandom, 1, stream);
  const GemmArgs check{a.get(), b.get(), d.get(), int(s.m), int(s.n), int(s.k)};
  const RotatingInputs inputs(s, opt.seed + 1000, size_t(dev.prop.l2CacheSize), stream);

  // Verify every contestant first, against one reference GEMM; the verified ones are then timed together in
  // interleaved rounds.
  const HostReference reference = compute_reference(check, stream);
  std::vector<BenchRow> shape_rows;
  std::vector<std::function<void(int)>> timed;  // one per verified row, in row order
  std::vector<size_t> timed_row;
  std::vector<std::vector<Launcher>> launchers(contestants.size());
  for (size_t ci = 0; ci < contestants.size(); ++ci) {
    const Contestant& c = contestants[ci];
    BenchRow r;
    r.shape = s;
    r.step = c.name;
    r.what = c.what;
    r.extra = c.extra;
    r.skipped = check_shape(s, c.rule, c.name);
    if (!r.skipped.empty()) {  // not an error: this kernel is not made for the shape; cuBLAS still runs it
      progress(s, c.name.c_str(), "skipped");
      std::fprintf(stderr, "  %s skips this shape: %s\n", c.name.c_str(), r.skipped.c_str());
      shape_rows.push_back(r);
      continue;
    }
    progress(s, c.name.c_str(), "verify");
    const VerifyReport rep = run_and_check(
        [&](const GemmArgs& g) {
          const Launcher launch = c.prepare(g);  // alive until the kernel is checked: it owns buffers the launch uses
          launch(stream);
          check_kernel("the " + c.name + " kernel", stream);
        },
        check, reference, InitMode::kRandom, stream);
    r.verified = rep.pass;
    r.max_abs_err = rep.max_abs_err;
    if (rep.pass) {  // only a verified kernel is timed
      for (int64_t i = 0; i < inputs.sets(); ++i) launchers[ci].push_back(c.prepare(inputs[i]));
      timed.push_back([&, ci](int i) { launchers[ci][size_t(i % inputs.sets())](stream); });
      timed_row.push_back(shape_rows.size());
    } else {
      all_verified = false;
      std::fprintf(stderr, "  %s FAILED verification: %s (not timed)\n", c.name.c_str(), rep.summary().c_str());
    }
    shape_rows.push_back(r);
  }
  progress(s, "cuBLAS", "verify");
  BenchRow c;
  c.shape = s;
  c.step = "cublas";
  c.what = "cublasGemmEx (baseline)";
  const VerifyReport crep =
      run_and_check([&](const GemmArgs& g) { cublas_gemm(blas, g); }, check, reference, InitMode::kRandom, stream);
  c.verified = crep.pass;
  c.max_abs_err = crep.max_abs_err;
  timed.push_back([&](int i) { cublas_gemm(blas, inputs[i]); });  // the baseline is timed either way
  timed_row.push_back(shape_rows.size());
  shape_rows.push_back(c);

  for (const double settle_ms : settle) {
    const char* method = timing_method(settle_ms);
    std::fprintf(stderr, "        %lldx%lldx%lld timing %zu kernels in %d interleaved rounds, %s\n", (long long)s.m,
                 (long long)s.n, (long long)s.k, timed.size(), opt.rounds, method);
    std::vector<std::vector<double>> raw;
    const std::vector<TimingStats> times =
        time_interleaved(timed, opt.warmup, opt.iters, opt.rounds, stream, &raw, settle_ms);
    check_kernel("timing the ladder", stream);
    std::vector<BenchRow> method_rows = shape_rows;
    for (BenchRow& r : method_rows) r.method = method;
    for (size_t t = 0; t < times.size(); ++t) method_rows[timed_row[t]].t = times[t];
    // Every timed launch, with its turn's place in the round's balanced order and the kernel before it.
    const int n = int(timed.size()), per_round = opt.iters / opt.rounds;
    for (int round = 0; round < opt.rounds; ++round) {
      const std::vector<int> order = round_order(n, round);
      for (int pos = 0; pos < n; ++pos) {
        const int t = order[size_t(pos)];
        const std::string& name = method_rows[timed_row[size_t(t)]].step;
        const std::string& after = method_rows[timed_row[size_t(turn_before(n, round, pos))]].step;
        for (int i = round * per_round; i < (round + 1) * per_round; ++i)
          samples.push_back({s, name, method, round, pos, after, i, raw[size_t(t)][size_t(i)]});
      }
    }
    const BenchRow& base = method_rows.back();  // cuBLAS, timed by the same method
    for (BenchRow& r : method_rows) {
      if (r.t.samples == 0) continue;
      r.tflops = tflops(s.m, s.n, s.k, r.t.median_ms);
      r.pct_cublas = 100.0 * base.t.median_ms / r.t.median_ms;
      r.pct_peak = peak > 0 ? 100.0 * r.tflops / peak : 0.0;
    }
    rows.insert(rows.end(), method_rows.begin(), method_rows.end());
  }
  return all_verified;
}

void print_bench_plan(const BenchOptions& opt, const std::vector<Contestant>& contestants) {
  std::vector<std::string> names;
  for (const Contestant& c : contestants) names.push_back(c.name);
  names.push_back("cublas");
  std::printf("plan: %zu shape(s)%s%s; kernels %s; %d warm-up and %d timed launches each in %d rounds, burst and "
              "sustained (settle %g ms)\n",
              opt.shapes.size(), opt.sweep_file.empty() ? "" : " from ", opt.sweep_file.c_str(),
              join_names(names).c_str(), opt.warmup, opt.iters, opt.rounds, opt.settle_ms);
  std::printf("stream-K knobs of the steps that have them: %s\n", stream_k_text(opt.stream_k).c_str());
  std::printf("  %-20s %9s  %-26s %s\n", "MxNxK", "GFLOP", "model layer", "timed; skipped by: why");
  const int64_t launches = 2 * int64_t(opt.warmup + opt.iters);  // per kernel and shape, both methods
  int64_t timings = 0, all_run = 0;
  double timed_flop = 0, reference_flop = 0;
  for (size_t i = 0; i < opt.shapes.size(); ++i) {
    const Shape& s = opt.shapes[i];
    const double flop = 2.0 * double(s.m) * double(s.n) * double(s.k);
    const ShapeTakers takers = shape_takers(s, contestants);
    std::vector<std::string> timed = takers.timed;
    timed.push_back("cublas");
    all_run += takers.reasons.empty();
    timings += int64_t(timed.size());
    timed_flop += flop * double(launches) * double(timed.size());
    reference_flop += flop;
    const std::string from = opt.sweep.empty() ? "" : opt.sweep[i].model + " " + opt.sweep[i].layer;
    const std::string line = join_names(timed) + skip_text(takers);
    std::printf("  %-20s %9.1f  %-26s %s\n", shape_name(s).c_str(), flop / 1e9, from.c_str(), line.c_str());
  }
  std::printf("total: %lld of %zu shape(s) run every kernel; %lld (shape, kernel) timings of %lld launches each "
              "(both methods, warm-up included): %.1f TFLOP; one reference GEMM per shape: %.1f TFLOP on CUDA "
              "cores; settle launches: about %.0f s\n",
              (long long)all_run, opt.shapes.size(), (long long)timings, (long long)launches, timed_flop / 1e12,
              reference_flop / 1e12, double(timings) * opt.rounds * opt.settle_ms / 1000.0);
}

RunInfo collect_run_info(const Device& dev) {
  RunInfo r;
  HG_CUDA_CHECK(cudaRuntimeGetVersion(&r.runtime));
  HG_CUDA_CHECK(cudaDriverGetVersion(&r.driver_api));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&r.clock_khz, cudaDevAttrClockRate, dev.ordinal));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&r.mem_clock_khz, cudaDevAttrMemoryClockRate, dev.ordinal));
  int blas_major = 0, blas_minor = 0, blas_patch = 0;
  HG_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &blas_major));
  HG_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &blas_minor));
  HG_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &blas_patch));
  r.driver = shell_line("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null");
  r.clocks_now = shell_line("nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null");
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  r.date = date;
  r.cuda = std::to_string(r.runtime / 1000) + "." + std::to_string(r.runtime % 1000 / 10);
  r.cublas = std::to_string(blas_major) + "." + std::to_string(blas_minor) + "." + std::to_string(blas_patch);
  return r;
}

void print_run_header(const Device& dev, const RunInfo& info, const BenchOptions& opt) {
  std::printf("GPU: %s, %d SMs, max SM clock %d MHz, driver %s, CUDA %s, cuBLAS %s, %s\n", dev.prop.name,
              dev.prop.multiProcessorCount, info.clock_khz / 1000,
              info.driver.empty() ? "unknown" : info.driver.c_str(),
              info.cuda.c_str(), info.cublas.c_str(), info.date.c_str());
  std::printf("median of %d timed launches in %d interleaved rounds after %d warm-up; burst: no settle launches, "
              "sustained: each turn after %g ms of settle launches; inputs rotated through more than 2x the L2; "
              "dense fp16 peak %.1f TFLOP/s\n",
              opt.iters, opt.rounds, opt.warmup, opt.settle_ms, dense_fp16_peak(dev.prop));
  std::printf("stream-K knobs of the steps that have them: %s\n", stream_k_text(opt.stream_k).c_str());
}

void print_bench_tables(const std::vector<BenchRow>& rows, const BenchOptions& opt, const char* key,
                        const char* what) {
  const double settle[] = {0.0, opt.settle_ms};
  // The turns' order: one line, or one per number of kernels timed where shapes timed different numbers (a
  // sweep's shapes that some steps skip).
  std::vector<int> timed;
  for (const Shape& s : opt.shapes) {
    int n = 0;
    for (const BenchRow& r : rows) n += same_shape(r.shape, s) && r.method == timing_method(0) && r.t.samples > 0;
    timed.push_back(n);
  }
  std::vector<int> counts = timed;
  std::sort(counts.begin(), counts.end(), std::greater<int>());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (counts.size() == 1) std::printf("kernel order: %s\n", order_note(counts.front(), opt.rounds).c_str());
  if (counts.size() > 1)
    for (const int n : counts)
      std::printf("kernel order where %d kernel(s) are timed (%lld shape(s)): %s\n", n,
                  (long long)std::count(timed.begin(), timed.end(), n), order_note(n, opt.rounds).c_str());
  for (size_t i = 0; i < opt.shapes.size(); ++i)
    for (const double settle_ms : settle) {
      const Shape& s = opt.shapes[i];
      const std::string method = timing_method(settle_ms);
      const std::string from = opt.sweep.empty() ? "" : " (" + opt.sweep[i].model + " " + opt.sweep[i].layer + ")";
      std::printf("\n%lld x %lld x %lld, %s%s\n", (long long)s.m, (long long)s.n, (long long)s.k, method.c_str(),
                  from.c_str());
      std::printf("  %-22s %-31s %10s %10s %10s %8s %9s %7s\n", key, what, "median ms", "p10 ms", "p90 ms",
                  "TFLOP/s", "% cuBLAS", "% peak");
      for (const BenchRow& r : rows) {
        if (!same_shape(r.shape, s) || r.method != method) continue;
        if (!r.skipped.empty()) {
          std::printf("  %-22s %-31s skipped: %s\n", r.step.c_str(), r.what.c_str(), r.skipped.c_str());
          continue;
        }
        if (r.t.samples == 0) {
          std::printf("  %-22s %-31s %s\n", r.step.c_str(), r.what.c_str(), "FAILED verification, not timed");
          continue;
        }
        std::printf("  %-22s %-31s %10.4f %10.4f %10.4f %8.1f %8.1f%% %6.1f%%\n", r.step.c_str(), r.what.c_str(),
                    r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops, r.pct_cublas, r.pct_peak);
      }
    }
}

bool write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, const char* key,
                     const std::vector<std::string>& extra_columns) {
  std::ofstream csv(path);
  csv << "m,n,k," << key << ",what,method,verified,max_abs_err,median_ms,p10_ms,p90_ms,tflops,pct_cublas,pct_peak";
  for (const std::string& col : extra_columns) csv << ',' << col;
  csv << '\n';
  for (const BenchRow& r : rows) {
    char line[512];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,\"%s\",%s,%d,%.4g,%.5f,%.5f,%.5f,%.1f,%.1f,%.1f",
                  (long long)r.shape.m, (long long)r.shape.n, (long long)r.shape.k, r.step.c_str(), r.what.c_str(),
                  r.method.c_str(), r.verified ? 1 : 0, r.max_abs_err, r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops,
                  r.pct_cublas, r.pct_peak);
    csv << line;
    for (size_t i = 0; i < extra_columns.size(); ++i) csv << ',' << (i < r.extra.size() ? csv_value(r.extra[i]) : "");
    csv << '\n';
  }
  return bool(csv);
}

bool write_samples_csv(const std::string& path, const std::vector<BenchSample>& samples, const char* key) {
  std::ofstream raw(path);
  raw << "m,n,k," << key << ",method,round,position,after,index,ms\n";
  for (const BenchSample& x : samples) {
    char line[256];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,%s,%d,%d,%s,%d,%.5f\n", (long long)x.shape.m,
                  (long long)x.shape.n, (long long)x.shape.k, x.step.c_str(), x.method.c_str(), x.round,
                  x.position, x.after.c_str(), x.index, x.ms);
    raw << line;
  }
  return bool(raw);
}

int bench_main(int argc, char** argv, const std::string& tool, const std::string& extra_help,
               const std::function<int(const BenchOptions&)>& run, const std::vector<std::string>& step_names) {
  const char* name = tool.c_str();
  BenchOptions args;
  try {
    args = parse_bench_options(argc, argv, step_names);
  } catch (const UsageError& e) {
    if (std::string(e.what()) == "help") {
      std::printf("%s%s", bench_usage(tool, step_names).c_str(), extra_help.c_str());
      return 0;
    }
    std::fprintf(stderr, "%s: error: %s (run with --help for usage)\n", name, e.what());
    return 2;
  }
  try {
    return run(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 2;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", name, e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 3;
  }
}

}  // namespace hg
