# `cmake --install build --prefix DIR`: the kiln programs, the headers plugins build against, the
# in-tree plugins, and the CMake package (find_package(Kiln) with kiln_add_plugin). Included by
# the top-level CMakeLists.txt after every target exists.
include(CMakePackageConfigHelpers)

# The plugin API version, read from the header so that the package can never disagree with it.
file(STRINGS ${CMAKE_SOURCE_DIR}/plugin_host/kiln_plugin.h _kiln_api_line REGEX "^#define KILN_PLUGIN_API_VERSION ")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" KILN_PLUGIN_API_VERSION "${_kiln_api_line}")

foreach(program kiln kiln-studio)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION bin)
  endif()
endforeach()
# storage/ and viewers/: what a studio plugin's stage view sees (plugin_host/kiln_studio_plugin.h).
foreach(dir engine importers plugin_host storage viewers)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/ DESTINATION include/kiln/${dir} FILES_MATCHING PATTERN "*.h")
endforeach()
foreach(plugin silu_fusion kiln_reference silu_fusion_studio)
  if(TARGET ${plugin})
    install(TARGETS ${plugin} LIBRARY DESTINATION lib/kiln/plugins)
  endif()
endforeach()

configure_file(${CMAKE_SOURCE_DIR}/cmake/KilnConfig.cmake.in ${CMAKE_BINARY_DIR}/cmake/KilnConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/KilnConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY ExactVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/KilnConfig.cmake ${CMAKE_BINARY_DIR}/cmake/KilnConfigVersion.cmake
              ${CMAKE_SOURCE_DIR}/cmake/KilnPlugin.cmake
        DESTINATION lib/cmake/Kiln)
