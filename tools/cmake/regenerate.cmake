# `cmake --build <build> --target regenerate`: every generated file of the checkout, rewritten from its sources in
# the order they depend on each other: the step diffs (tools/make_diffs.py), the pages' generated regions and the
# benchmark chart (tools/pages.py, with hg_step_facts built for the facts tables), then the numbers the prose ties
# to the data (tools/docs_numbers.py). Commit what it changes; the cpu tests check each of them.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_custom_target(regenerate
    COMMAND ${Python3_EXECUTABLE} tools/make_diffs.py --write
    COMMAND ${Python3_EXECUTABLE} tools/pages.py --write --facts-bin $<TARGET_FILE:hg_step_facts>
    COMMAND ${Python3_EXECUTABLE} tools/docs_numbers.py --write
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    USES_TERMINAL
    COMMENT "Regenerating the step diffs, the pages' generated regions and the chart, and the tied numbers")
  add_dependencies(regenerate hg_step_facts)
else()
  add_custom_target(regenerate
    COMMAND ${CMAKE_COMMAND} -E echo "regenerate runs Python scripts: install Python 3 and configure again"
    COMMAND ${CMAKE_COMMAND} -E false)
endif()
