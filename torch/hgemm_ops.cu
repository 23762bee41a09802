// torch/hgemm_ops.cu: every step of the ladder as a C function that PyTorch calls (torch/hgemm/_lib.py, through
// ctypes), so that no PyTorch is needed to build it. hg_torch_mm runs one step's kernel on device pointers and a
// stream that the caller owns: D (M x N) = A (M x K) * B (N x K)^T, all row-major fp16. It refuses a request with the
// verify binary's words (the step's shape rule, its ring depths, its tile menu). It synchronises only where it
// allocates or frees a stream-K workspace (cudaMalloc, cudaFree: on a new problem, or when the cache drops one).
//
// The kernels are not compiled here: this file is host code (the kernel headers it includes for the tile menus
// compile out) and the library links every step's spec, whose kernels were compiled once (tools/cmake/steps.cmake).
// Preparing a launch (tensor maps, occupancy, step 10 and 11's stream-K workspace) costs far more than launching, so
// prepared launchers are kept in a small LRU cache keyed by everything they were built from.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/harness/bench.hpp"
#include "common/harness/cli.hpp"
#include "common/harness/harness.cuh"
#include "common/harness/order.hpp"
#include "common/harness/runner.hpp"
#include "common/harness/stats.hpp"
#include "common/harness/verify.hpp"
#include "common/kernel/check.cuh"
#include "common/kernel/tile_choice.hpp"
#include "common/kernel/tma.hpp"
#include "menus.inc"  // generated (torch/CMakeLists.txt): HG_TILE_MENUS, the menus of the steps with the knob "tile"
#include "steps.hpp"  // generated (CMakeLists.txt): hg::all_steps(), hg::ladder_steps()

namespace {

// What hg_torch_mm returns (the verify binary's exit codes for the same outcomes).
constexpr int kOk = 0, kBadRequest = 2, kCudaError = 3;

// Prepared launchers kept at once: each may hold a stream-K workspace (cudaMalloc'ed, freed on eviction).
constexpr size_t kCacheEntries = 64;

// TMA reads A and B and writes D at their global addresses, which must be 16-byte aligned (CUDA Driver API,
// cuTensorMapEncodeTiled: globalAddress); the steps whose threads copy load 16-byte vectors from the same rows.
constexpr uintptr_t kAddressAlign = 16;

struct Menu {
  const char* step;
  std::vector<hg::TileRequest> sm90, sm100;
};

template <size_t N>
std::vector<hg::TileRequest> menu_of(const hg::TileOption (&tiles)[N]) {
  std::vector<hg::TileRequest> out;
  for (const hg::TileOption& t : tiles) out.push_back({t.m, t.n});
  return out;
}

const std::vector<Menu>& menus() {
#define HG_MENU_ENTRY(name, ns) Menu{name, menu_of(ns::sm90::kTiles), menu_of(ns::sm100::kTiles)},
  static const std::vector<Menu> all = {HG_TILE_MENUS(HG_MENU_ENTRY)};
#undef HG_MENU_ENTRY
  return all;
}

const std::vector<hg::StepSpec>& steps() {
  static const std::vector<hg::StepSpec> all = hg::all_steps();
  return all;
}

const char* rule_name(hg::ShapeRule rule) {
  switch (rule) {
    case hg::ShapeRule::kSingleTile: return "kSingleTile";
    case hg::ShapeRule::kSingleOutputTile: return "kSingleOutputTile";
    case hg::ShapeRule::kTiled: return "kTiled";
    case hg::ShapeRule::kAny: return "kAny";
  }
  return "unknown";
}

std::string list_json(const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string shape_json(const hg::Shape& s) {
  return list_json({int(s.m), int(s.n), int(s.k)});
}

std::string menu_json(const std::vector<hg::TileRequest>& menu) {
  std::string out = "[";
  for (size_t i = 0; i < menu.size(); ++i)
    out += std::string(i ? ", " : "") + "\"" + std::to_string(menu[i].m) + "x" + std::to_string(menu[i].n) + "\"";
  return out + "]";
}

std::string registry_json() {
  std::vector<std::string> ladder;
  for (const hg::StepSpec& s : hg::ladder_steps()) ladder.push_back(s.name);
  std::string out = "{\"steps\": [";
  for (size_t i = 0; i < steps().size(); ++i) {
    const hg::StepSpec& s = steps()[i];
    std::string menu_text = "{}";
    for (const Menu& m : menus())
      if (std::strcmp(m.step, s.name) == 0)
        menu_text = "{\"sm90\": " + menu_json(m.sm90) + ", \"sm100\": " + menu_json(m.sm100) + "}";
    bool in_ladder = false;
    for (const std::string& name : ladder) in_ladder = in_ladder || name == s.name;
    out += std::string(i ? ", " : "") + "{\"name\": \"" + hg::json_escape(s.name) + "\", \"label\": \"" +
           hg::json_escape(s.label) + "\", \"rule\": \"" + rule_name(s.rule) + "\", \"natural_shape\": " +
           shape_json(s.natural_shape) + ", \"depths\": " + list_json(s.pipe_depths) + ", \"tile_knob\": " +
           (s.tile_knob ? "true" : "false") + ", \"stream_k\": " + (s.stream_k_knobs ? "true" : "false") +
           ", \"ladder\": " + (in_ladder ? "true" : "false") + ", \"menus\": " + menu_text + "}";
  }
  out += "], \"bench_shapes\": [";
  const std::vector<hg::Shape> shapes = hg::default_bench_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) out += (i ? ", " : "") + shape_json(shapes[i]);
  return out + "]}";
}

void copy_out(const std::string& text, char* out, size_t len) {
  if (out == nullptr || len == 0) return;
  const size_t n = std::min(text.size(), len - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

/// A request checked as the verify binary checks its command line: the step, its shape rule and the size bound, the
/// ring depth, the tile. Throws hg::UsageError with the verify binary's words.
struct Request {
  const hg::StepSpec* spec = nullptr;
  hg::Shape shape;
  hg::TileRequest tile;
  std::string tile_text;
  int depth = 0;
};

Request check_request(const char* step, int64_t m, int64_t n, int64_t k, const char* tile, int pipe_depth) {
  Request r;
  for (const hg::StepSpec& s : steps())
    if (step != nullptr && std::strcmp(step, s.name) == 0) r.spec = &s;
  if (r.spec == nullptr) {  // the list of names only for the refusal: this runs on every call
    std::string names;
    for (const hg::StepSpec& s : steps()) names += (names.empty() ? "" : ", ") + std::string(s.name);
    throw hg::UsageError("no step '" + std::string(step ? step : "") + "'; the steps are " + names);
  }
  r.shape = {m, n, k};
  const std::string bad_shape = hg::check_shape(r.shape, r.spec->rule, r.spec->name);
  if (!bad_shape.empty()) throw hg::UsageError(bad_shape);
  for (const auto& [name, v] : {std::pair<const char*, int64_t>{"M", m}, {"N", n}, {"K", k}})
    hg::parse_bounded(name, std::to_string(v), 1, hg::kMaxDim);
  r.depth = hg::resolve_pipe_depth(pipe_depth, r.spec->pipe_depths, r.spec->name);
  r.tile_text = tile ? tile : "auto";
  r.tile = hg::parse_tile(r.tile_text);
  hg::check_step_knobs(*r.spec, false, r.tile_text != "auto");
  return r;
}

void check_address(const char* what, const void* p) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  if (at % kAddressAlign == 0) return;
  char text[96];
  std::snprintf(text, sizeof text, "%p", p);
  throw hg::UsageError(std::string(what) + " starts at " + text + ", not on a 16-byte boundary: TMA reads and writes "
                       "global memory at 16-byte aligned addresses (cuTensorMapEncodeTiled: globalAddress); pass a "
                       "tensor whose data_ptr() is a multiple of 16 (a .clone() is)");
}

/// The kernel a GPU of compute capability major.minor runs, or a UsageError naming what the kernels need.
hg::KernelArch kernel_arch(int device) {
  int major = 0, minor = 0;
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  // sm_90a and sm_100a code runs on exactly 9.0 and 10.0 (as the verify binary's find_device says).
  if (major == 9 && minor == 0) return hg::KernelArch::kSm90;
  if (major == 10 && minor == 0) return hg::KernelArch::kSm100;
  throw hg::UsageError("GPU " + std::to_string(device) + " has compute capability " + std::to_string(major) + "." +
                       std::to_string(minor) + "; the kernels need 9.0 (Hopper, sm_90a) or 10.0 (Blackwell "
                       "datacenter, sm_100a)");
}

/// Makes `device` current for the caller's scope and restores the previous one (ctypes calls come from any thread).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    HG_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) HG_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() { cudaSetDevice(previous_); }  // no check: a destructor must not throw
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Everything a prepared launcher was built from. The stream is part of it: a stream-K launcher's flags count
// launches in stream order (common/kernel/stream_k_host.hpp), so two streams never share one.
using Key = std::tuple<int, std::string, int, int64_t, int64_t, int64_t, const void*, const void*, const void*,
                       std::string, int, void*>;

struct Entry {
  Key key;
  hg::Launcher launch;
  std::string chosen;  // what the step's host code chose (step 11: the tile)
};

class LauncherCache {
 public:
  /// Launches the request's kernel on `stream`, preparing it first unless a launcher built from the same key is
  /// kept; copies what the step chose into `chosen`. The lock is held while launching too: a stream-K launcher
  /// counts its launches on the host (StreamKBuffers::next_epoch).
  void launch(const Key& key, const std::function<hg::Launcher(std::string*)>& prepare, cudaStream_t stream,
              std::string& chosen) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.begin();
    while (it != entries_.end() && it->key != key) ++it;
    if (it == entries_.end()) {
      Entry e{key, {}, {}};
      e.launch = prepare(&e.chosen);
      ++prepared_;
      entries_.push_front(std::move(e));
      // Evicting frees a stream-K workspace; cudaFree waits for the work already enqueued on the device.
      if (entries_.size() > kCacheEntries) entries_.pop_back();
    } else {
      entries_.splice(entries_.begin(), entries_, it);  // most recently used first
    }
    entries_.front().launch(stream);
    // A <<<>>> launch reports nothing: ask, so a failed launch raises here, not at PyTorch's next check of
    // another op (the pair steps' cudaLaunchKernelEx is checked already; asking again costs nothing).
    HG_CUDA_CHECK(cudaGetLastError());
    chosen = entries_.front().chosen;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }
  int64_t prepared() {
    std::lock_guard<std::mutex> lock(mutex_);
    return prepared_;
  }

 private:
  std::mutex mutex_;
  int64_t prepared_ = 0;  // launchers built since the library was loaded
  std::list<Entry> entries_;  // most recently used first
};

LauncherCache& cache() {
  static LauncherCache* c = new LauncherCache;  // never destroyed: no cudaFree after the CUDA runtime has shut down
  return *c;
}

/// Runs `body`, turning its exceptions into a return code and a message.
template <typename Body>
int guarded(char* err, size_t err_len, Body&& body) {
  copy_out("", err, err_len);
  try {
    body();
    return kOk;
  } catch (const hg::UsageError& e) {
    copy_out(e.what(), err, err_len);
    return kBadRequest;
  } catch (const hg::TmaGeometryError& e) {  // a shape the rule admits but a tensor map cannot describe: a bug
    copy_out(e.what(), err, err_len);
    return kCudaError;
  } catch (const std::invalid_argument& e) {  // the step's host code refused the request, e.g. a tile off its menu
    copy_out(e.what(), err, err_len);
    return kBadRequest;
  } catch (const std::exception& e) {  // CudaError, or a stream-K launch refusing graph capture
    copy_out(e.what(), err, err_len);
    return kCudaError;
  }
}

}  // namespace

extern "C" {

/// The registry as JSON: {"steps": [{name, label, rule, natural_shape, depths (default first), tile_knob, stream_k,
/// ladder, menus: {"sm90": ["256x256", ...], "sm100": [...]} or {}}, ...], "bench_shapes": [[m, n, k], ...]}
/// (default_bench_shapes, common/harness/bench.hpp). No GPU needed.
const char* hg_torch_registry_json() {
  static const std::string text = registry_json();
  return text.c_str();
}

/// 0 when `step` takes the request (shape, ring depth, tile: "auto", "MxN" or "N"; depth 0: the default), else 2
/// with the verify binary's reason in err. Host only: no GPU needed (a tile off the menu is found at launch time,
/// where the GPU says which kernel runs).
int hg_torch_check(const char* step, int64_t m, int64_t n, int64_t k, const char* tile, int pipe_depth, char* err,
                   size_t err_len) {
  return guarded(err, err_len, [&] { check_request(step, m, n, k, tile, pipe_depth); });
}

/// D = A * B^T with `step`'s kernel for GPU `device` (9.0: sm90, 10.0: sm100) on `stream`, enqueued only. Returns 0,
/// 2 (a request the step refuses: err says why, in the verify binary's words) or 3 (a CUDA error, or a stream-K
/// launch that splits refusing graph capture: err says which). chosen: what the step chose (step 11 on Hopper:
/// "tile=256x192 tile_choice=auto stages=4"), else empty.
int hg_torch_mm(int device, const char* step, const void* a, const void* b, void* d, int64_t m, int64_t n, int64_t k,
                const char* tile, int pipe_depth, void* stream, char* err, size_t err_len, char* chosen,
                size_t chosen_len) {
  copy_out("", chosen, chosen_len);
  return guarded(err, err_len, [&] {
    const Request r = check_request(step, m, n, k, tile, pipe_depth);
    check_address("A", a);
    check_address("B", b);
    check_address("D", d);
    DeviceScope scope(device);
    const hg::KernelArch arch = kernel_arch(device);
    const hg::PrepareFn prepare_fn = arch == hg::KernelArch::kSm90 ? r.spec->prepare_sm90 : r.spec->prepare_sm100;
    const hg::GemmArgs g{static_cast<const __half*>(a), static_cast<const __half*>(b), static_cast<__half*>(d),
                         int(m), int(n), int(k)};
    const Key key{device, r.spec->name, int(arch), m, n, k, a, b, d, r.tile_text, r.depth, stream};
    std::string picked;
    cache().launch(key,
                   [&](std::string* out) {
                     hg::Variant v;
                     v.pipe_depth = r.depth;
                     v.tile = r.tile;
                     v.chosen = out;
                     return prepare_fn(g, v);
                   },
                   static_cast<cudaStream_t>(stream), picked);
    copy_out(picked, chosen, chosen_len);
  });
}

/// The verify binary's tolerance for one element of random-normal inputs (common/harness/verify.cpp), for the tests
/// to check that theirs is the same.
double hg_torch_tolerance(double ref, double mag, int64_t k) { return hg::tolerance(ref, mag, k); }

/// The shapes of a sweep file (tools/sweep_shapes.csv, read as hgemm_bench --sweep reads it) as JSON:
/// {"shapes": [{"m", "n", "k", "model", "layer"}, ...]} or {"error": "..."}. Valid until the next call on this thread.
const char* hg_torch_sweep_json(const char* path) {
  thread_local std::string text;
  try {
    text = "{\"shapes\": [";
    const std::vector<hg::SweepShape> rows = hg::read_sweep_file(path ? path : "");
    for (size_t i = 0; i < rows.size(); ++i) {
      const hg::SweepShape& r = rows[i];
      text += std::string(i ? ", " : "") + "{\"m\": " + std::to_string(r.shape.m) + ", \"n\": " +
              std::to_string(r.shape.n) + ", \"k\": " + std::to_string(r.shape.k) + ", \"model\": \"" +
              hg::json_escape(r.model) + "\", \"layer\": \"" + hg::json_escape(r.layer) + "\"}";
    }
    text += "]}";
  } catch (const std::exception& e) {
    text = "{\"error\": \"" + hg::json_escape(e.what()) + "\"}";
  }
  return text.c_str();
}

/// Prepared launchers kept, launchers built since the library was loaded (a benchmark checks that its timed launches
/// built none), and dropping them all (frees their stream-K workspaces).
int hg_torch_cache_size() { return int(cache().size()); }
int64_t hg_torch_prepared_count() { return cache().prepared(); }
void hg_torch_cache_clear() { cache().clear(); }

// What tools/torch_bench.py shares with hgemm_bench's timing (common/harness), so that both time alike.

/// How many input sets of M x N x K rotate (hg::rotating_input_sets).
int64_t hg_torch_rotating_sets(int64_t m, int64_t n, int64_t k, size_t l2_bytes, size_t free_bytes) {
  return hg::rotating_input_sets(hg::Shape{m, n, k}, l2_bytes, free_bytes);
}

/// The order of the `kernels` contenders' turns in round `round` (hg::round_order) into out[0 .. kernels-1]; -1 for
/// a negative count or round.
int hg_torch_round_order(int kernels, int round, int* out) {
  if (kernels < 0 || round < 0) return -1;
  const std::vector<int> order = hg::round_order(kernels, round);
  std::copy(order.begin(), order.end(), out);
  return 0;
}

/// The cycle after which round_order repeats (hg::order_cycle).
int hg_torch_order_cycle(int kernels) { return hg::order_cycle(kernels); }

/// Median, 10th and 90th percentile of `count` times (hg::summarize: NumPy's linear interpolation) into out[0..2];
/// -1 for no samples.
int hg_torch_summarize(const double* ms, int count, double* out) {
  if (count < 1) return -1;
  const hg::TimingStats t = hg::summarize(std::vector<double>(ms, ms + count));
  out[0] = t.median_ms;
  out[1] = t.p10_ms;
  out[2] = t.p90_ms;
  return 0;
}

}  // extern "C"
