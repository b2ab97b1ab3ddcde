# torch.distributed on the CPU: Gloo (Debian's libgloo-dev, installed by tools/bootstrap.sh), the
# collectives library PyTorch's 'gloo' backend uses. engine/runtime/process_group.cpp is its only
# user; linked to the engine library that holds engine/runtime/.
find_library(KILN_GLOO NAMES gloo REQUIRED)
foreach(kiln_target kiln_runtime kiln_engine)
  if(TARGET ${kiln_target})
    target_link_libraries(${kiln_target} PUBLIC ${KILN_GLOO})
    break()
  endif()
endforeach()
