# Writes the man page gemmtune.1 from the built binary's help: help2man over `gemmtune --help`
# and `--version`, with one section per subcommand holding that subcommand's --help.
#   cmake -DGEMMTUNE=<binary> -DHELP2MAN=<help2man> -DOUT=<gemmtune.1> -P man_page.cmake
execute_process(COMMAND ${GEMMTUNE} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gemmtune --help failed (${rc})")
endif()
# The subcommands are the first words of the lines under "Subcommands:".
string(FIND "${top}" "Subcommands:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "gemmtune --help lists no subcommands")
endif()
string(SUBSTRING "${top}" ${at} -1 listing)
string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "${listing}")
set(include "[DESCRIPTION]\nSee the subcommand sections below; docs/commands.md in the source has examples.\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND ${GEMMTUNE} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gemmtune ${name} --help failed (${rc})")
  endif()
  string(TOUPPER "${name}" upper)
  string(APPEND include "[SUBCOMMAND ${upper}]\n.nf\n${help}\n.fi\n")
endforeach()
get_filename_component(dir "${OUT}" DIRECTORY)
file(WRITE "${dir}/gemmtune-man-include.txt" "${include}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name "autotuner for CUDA GEMM kernels"
          --section 1 --include "${dir}/gemmtune-man-include.txt" --output "${OUT}" ${GEMMTUNE}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
