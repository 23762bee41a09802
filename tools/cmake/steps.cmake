# How CMake builds a step from its folder and its steps.json entry (included by CMakeLists.txt, which has read the
# registry into HG_REGISTRY). Per step it generates, under <build>/steps/<step>/ (templates beside this file):
#   spec.cpp          the entry as an hg::StepSpec (stepN::spec()), for the verify binary and the benchmark;
#   sm90.cu, sm100.cu each kernel's real instances (hg::Break::kNone) at every depth of the entry, and prepare(),
#                     the dispatch from a run-time Variant; each compiled only for its own architecture's targets;
#   sm90_breaks.cu, sm100_breaks.cu  the broken instances for --break (only with HG_BREAK_VARIANTS);
#   main.cpp          the verify binary's main(), unless the step folder has its own main.cu.
# Into <step>_spec (a static library that the verify binary <step> and hgemm_bench link). What an entry names that
# its kernels cannot take fails here or in the build, naming the entry: a depth whose shared memory does not fit
# (a static_assert in sm90.cu/sm100.cu), a switch the kernel header never tests (configure).

# The switches one architecture's kernel lacks, declared once in common/kernel/gemm.hpp (kHopperOnlyBreaks,
# kBlackwellOnlyBreaks); each list is one line there.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/common/kernel/gemm.hpp)
foreach(which Hopper Blackwell)
  file(STRINGS ${PROJECT_SOURCE_DIR}/common/kernel/gemm.hpp line REGEX "k${which}OnlyBreaks\\[\\] = ")
  if(NOT line)
    message(FATAL_ERROR "common/kernel/gemm.hpp has no one-line k${which}OnlyBreaks[] = {...}: CMake reads the "
                        "switches of one architecture from it (tools/cmake/steps.cmake)")
  endif()
  string(REGEX MATCHALL "Break::k[A-Za-z0-9]+" found "${line}")
  list(TRANSFORM found REPLACE "Break::" "")
  string(TOUPPER ${which} upper)
  set(HG_${upper}_ONLY_BREAKS ${found})
endforeach()

# Compile each architecture's translation units for that architecture alone: the entries of
# CMAKE_CUDA_ARCHITECTURES of the form <N>[a-z][-real|-virtual] become per-source --generate-code flags. With an
# entry of another form ("native", "all"), every kernel TU gets the whole list instead.
set(HG_SPLIT_ARCHS ON)
foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(NOT a MATCHES "^[0-9]+[a-z]?(-real|-virtual)?$")
    set(HG_SPLIT_ARCHS OFF)
  endif()
endforeach()
# hg_gencode_flags(OUT NUMBER): the flags for the entries whose number is NUMBER (90 or 100).
function(hg_gencode_flags out number)
  set(flags "")
  foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(a MATCHES "^(${number}[a-z]?)(-real|-virtual)?$")
      set(n ${CMAKE_MATCH_1})
      if(NOT CMAKE_MATCH_2 STREQUAL "-virtual")
        list(APPEND flags "--generate-code=arch=compute_${n},code=sm_${n}")
      endif()
      if(NOT CMAKE_MATCH_2 STREQUAL "-real")
        list(APPEND flags "--generate-code=arch=compute_${n},code=compute_${n}")
      endif()
    endif()
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
hg_gencode_flags(HG_GENCODE_sm90 90)
hg_gencode_flags(HG_GENCODE_sm100 100)

# hg_add_step(INDEX): the step steps[INDEX] of the registry: its checks, its generated sources, <step>_spec and the
# verify binary <step>. Sets HG_* variables of the step in the caller's scope (CMakeLists.txt lists them).
macro(hg_add_step i)
  string(JSON step GET "${HG_REGISTRY}" steps ${i} name)
  string(JSON ns GET "${HG_REGISTRY}" steps ${i} namespace)
  string(JSON what GET "${HG_REGISTRY}" steps ${i} what)
  string(JSON label GET "${HG_REGISTRY}" steps ${i} label)
  string(JSON rule GET "${HG_REGISTRY}" steps ${i} rule)
  string(JSON tmem_cols GET "${HG_REGISTRY}" steps ${i} tmem_cols)
  string(JSON ladder GET "${HG_REGISTRY}" steps ${i} ladder)
  hg_json_list(shape ${i} shape)
  hg_json_list(breaks ${i} breaks)
  hg_json_list(tolerated ${i} tolerated_sm90)
  hg_json_list(knobs ${i} knobs)
  hg_json_list(depths ${i} depths)
  hg_json_list(HG_PTX_NEW_${step} ${i} ptx)
  list(APPEND HG_STEPS ${step})
  set(HG_STEP_INDEX_${step} ${i})
  set(HG_STEP_NAMESPACE_${step} ${ns})
  set(HG_TMEM_COLS_${step} ${tmem_cols})
  set(HG_BREAKS_${step} ${breaks})
  set(HG_TOLERATED_SM90_${step} ${tolerated})
  unset(HG_DEFAULT_DEPTH_${step})
  unset(HG_DEPTHS_${step})
  if(depths)
    list(GET depths 0 HG_DEFAULT_DEPTH_${step})
    set(sorted ${depths})
    list(SORT sorted COMPARE NATURAL)
    set(HG_DEPTHS_${step} ${sorted})
  endif()
  if(ladder)
    list(APPEND HG_LADDER_STEPS ${step})
  endif()

  # --- What the folder and the pages must hold for this entry ---
  foreach(file ${step}/hgemm_sm90.cuh ${step}/hgemm_sm100.cuh docs/${step}.md)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${file})
      message(FATAL_ERROR "steps.json names the step ${step}, but ${file} does not exist: a step is its folder (both "
                          "kernel headers) and its lesson page docs/${step}.md (docs/conventions.md, Adding a step)")
    endif()
  endforeach()
  foreach(b IN LISTS tolerated)
    if(NOT b IN_LIST breaks)
      message(FATAL_ERROR "steps.json: ${step}'s tolerated_sm90 names ${b}, which is not among its breaks")
    endif()
  endforeach()

  foreach(arch sm90 sm100)
    file(STRINGS ${PROJECT_SOURCE_DIR}/${step}/hgemm_${arch}.cuh opens REGEX "^namespace ${ns}::${arch} {")
    if(NOT opens)
      message(FATAL_ERROR "steps.json gives ${step} the namespace ${ns}, but ${step}/hgemm_${arch}.cuh does not open "
                          "namespace ${ns}::${arch} { ... }: each kernel lives in its step's namespace")
    endif()
  endforeach()

  # --- Each kernel's switches: those of the entry that the architecture's kernel has, each tested in its header ---
  foreach(arch sm90 sm100)
    if(arch STREQUAL "sm90")
      set(lacks ${HG_BLACKWELL_ONLY_BREAKS})
    else()
      set(lacks ${HG_HOPPER_ONLY_BREAKS})
    endif()
    file(READ ${PROJECT_SOURCE_DIR}/${step}/hgemm_${arch}.cuh kernel_text)
    set(arch_breaks "")
    foreach(b IN LISTS breaks)
      if(b IN_LIST lacks)
        continue()
      endif()
      string(FIND "${kernel_text}" "hg::Break::${b}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "steps.json: ${step}'s breaks name ${b}, but ${step}/hgemm_${arch}.cuh never tests "
                            "hg::Break::${b}: remove it from the entry, or put the switch at the line of its contract "
                            "(common/kernel/gemm.hpp says how)")
      endif()
      list(APPEND arch_breaks "hg::Break::${b}")
    endforeach()
    list(JOIN arch_breaks ", " arch_breaks_${arch})
  endforeach()

  # The run-time knobs the entry declares reach prepare_variant after the problem, in this order: stream_k (the
  # split's knobs), then tile (the requested tile and where the step writes what it chose).
  set(variant_args "g")
  set(stream_k_knobs false)
  set(tile_knob false)
  foreach(knob IN LISTS knobs)
    if(NOT knob MATCHES "^(stream_k|tile)$")
      message(FATAL_ERROR "steps.json: ${step}'s knobs name '${knob}'; the knobs are: stream_k, tile")
    endif()
  endforeach()
  if("stream_k" IN_LIST knobs)
    string(APPEND variant_args ", v.stream_k")
    set(stream_k_knobs true)
  endif()
  if("tile" IN_LIST knobs)
    string(APPEND variant_args ", v.tile, v.chosen")
    set(tile_knob true)
  endif()

  # --- The generated sources ---
  set(gen ${CMAKE_BINARY_DIR}/steps/${step})
  set(spec_breaks ${breaks})
  list(TRANSFORM spec_breaks PREPEND "hg::Break::")
  list(JOIN spec_breaks ", " breaks)
  list(TRANSFORM tolerated PREPEND "hg::Break::")
  list(JOIN tolerated ", " tolerated)
  list(JOIN shape ", " shape)
  list(JOIN depths ", " depths_text)
  # The broken instances (--break) are built at two depths only, the default and 2: the break tests run at the
  # default depth and the SASS break tests compare depth-2 instances (tests/kernel_code.py). The other depths
  # would double their build for no test.
  unset(break_depths)
  if(depths)
    list(GET depths 0 break_depths)
    if(NOT break_depths EQUAL 2 AND "2" IN_LIST depths)
      list(APPEND break_depths 2)
    endif()
  endif()
  list(JOIN break_depths ", " break_depths_text)
  list(TRANSFORM break_depths PREPEND "v.pipe_depth != " OUTPUT_VARIABLE break_depth_tests)
  list(JOIN break_depth_tests " && " break_depth_test)
  string(REPLACE ", " " and " break_depths_words "${break_depths_text}")
  if(HG_BREAK_VARIANTS)
    set(break_variants true)
  else()
    set(break_variants false)
  endif()
  set(depths ${depths_text})
  configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/step_spec.cpp.in ${gen}/spec.cpp @ONLY)
  set(sources ${gen}/spec.cpp)
  foreach(arch sm90 sm100)
    set(depth_asserts "")
    if(depths_text)
      set(real_dispatch "hg::dispatch_depth<${depths_text}>(v.pipe_depth, [&](auto depth) {\n    return prepare_variant<decltype(depth)::value, hg::Break::kNone>(${variant_args});\n  })")
      set(broken_dispatch "${break_depth_test} ? throw std::invalid_argument(\"the --break instances are built at --pipe-depth ${break_depths_words} only, where the tests run them: give one of those\") : hg::dispatch_depth<${break_depths_text}>(v.pipe_depth, [&](auto depth) {\n    return hg::dispatch_break<${arch_breaks_${arch}}>(v.brk, [&](auto brk) {\n      return prepare_variant<decltype(depth)::value, decltype(brk)::value>(${variant_args});\n    });\n  })")
      foreach(d IN LISTS HG_DEPTHS_${step})
        string(APPEND depth_asserts "static_assert(${ns}::${arch}::kSmemBytes<${d}> <= hg::kMaxSmemBytes,\n"
               "              \"steps.json: ${step} offers --pipe-depth ${d}, but the ${arch} kernel's shared memory at "
               "that depth exceeds the 227 KiB a CTA may use\");\n")
      endforeach()
    else()
      set(real_dispatch "prepare_variant<hg::Break::kNone>(${variant_args})")
      set(broken_dispatch "hg::dispatch_break<${arch_breaks_${arch}}>(v.brk, [&](auto brk) {\n    return prepare_variant<decltype(brk)::value>(${variant_args});\n  })")
    endif()
    if(HG_BREAK_VARIANTS)
      set(broken_decl "hg::Launcher prepare_broken(const hg::GemmArgs& g, const hg::Variant& v);  // ${arch}_breaks.cu\n")
      set(broken_call "return prepare_broken(g, v)")
      configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/step_breaks.cu.in ${gen}/${arch}_breaks.cu @ONLY)
      list(APPEND sources ${gen}/${arch}_breaks.cu)
      set(arch_sources ${gen}/${arch}.cu ${gen}/${arch}_breaks.cu)
    else()
      set(broken_decl "")
      set(broken_call "throw std::invalid_argument(\"this build has no --break variants: reconfigure with \"\n                                                  \"-DHG_BREAK_VARIANTS=ON (the test preset sets it) and rebuild\")")
      set(arch_sources ${gen}/${arch}.cu)
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/step_kernels.cu.in ${gen}/${arch}.cu @ONLY)
    list(APPEND sources ${gen}/${arch}.cu)
    if(HG_SPLIT_ARCHS)
      set_source_files_properties(${arch_sources} PROPERTIES COMPILE_OPTIONS "${HG_GENCODE_${arch}}")
    endif()
  endforeach()
  add_library(${step}_spec STATIC ${sources})
  target_link_libraries(${step}_spec PUBLIC hg_common)
  # Position-independent, so that the shared library hgemm_torch_ops (torch/) can link it: the kernels compile once.
  set_target_properties(${step}_spec PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(HG_SPLIT_ARCHS)
    set_target_properties(${step}_spec PROPERTIES CUDA_ARCHITECTURES OFF)  # per source, above
  endif()
  # ptxas names every kernel instance that spills at build time; the spills/<step> tests fail on a real one.
  target_compile_options(${step}_spec PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)

  # --- The verify binary: the step's own main.cu if it has one, else the generated main() ---
  if(EXISTS ${PROJECT_SOURCE_DIR}/${step}/main.cu)
    add_executable(${step} ${step}/main.cu)
  else()
    configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/step_main.cpp.in ${gen}/main.cpp @ONLY)
    add_executable(${step} ${gen}/main.cpp)
  endif()
  target_link_libraries(${step} PRIVATE ${step}_spec hg_common)
endmacro()
