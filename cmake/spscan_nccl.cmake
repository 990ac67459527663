# NCCL for the sharded scans (<spscan/sharded_scan.h>): the target `spscan_nccl` where NCCL's
# header and library are found -- under NCCL_ROOT, in the CUDA toolkit, in the system's paths, or
# in the Python package nvidia-nccl-cu13 (scripts/install-deps.sh installs it where none is
# found). Without it the sharded scans' test and benchmark are not built, and the build says so.
set(spscan_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} /usr/local/cuda)
foreach(dir ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES})
  list(APPEND spscan_nccl_hints ${dir}/..)
endforeach()
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])"
    OUTPUT_VARIABLE spscan_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(spscan_nccl_wheel)
    list(APPEND spscan_nccl_hints ${spscan_nccl_wheel})
  endif()
endif()
find_path(SPSCAN_NCCL_INCLUDE_DIR nccl.h HINTS ${spscan_nccl_hints} PATH_SUFFIXES include)
find_library(SPSCAN_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${spscan_nccl_hints} PATH_SUFFIXES lib lib64)
if(SPSCAN_NCCL_INCLUDE_DIR AND SPSCAN_NCCL_LIBRARY)
  add_library(spscan_nccl INTERFACE)
  # A system directory, searched after every -I one: where NCCL's header sits in the CUDA
  # toolkit's include directory, that directory must not come before a CCCL given with -I (it
  # holds the toolkit's own, older CCCL headers).
  target_include_directories(spscan_nccl SYSTEM INTERFACE ${SPSCAN_NCCL_INCLUDE_DIR})
  target_link_libraries(spscan_nccl INTERFACE ${SPSCAN_NCCL_LIBRARY})
  message(STATUS "spscan: NCCL ${SPSCAN_NCCL_LIBRARY}: the sharded scans' test and benchmark are built")
else()
  message(WARNING "spscan: NCCL not found (run scripts/install-deps.sh, or set NCCL_ROOT): "
                  "the sharded scans' test and benchmark are not built")
endif()
