# kiln_add_plugin(NAME SOURCES...): a Kiln plugin (plugin_host/kiln_plugin.h) built as a shared
# module NAME.so. It links no Kiln library: the engine's symbols are resolved from the kiln
# executable when it loads the plugin (one copy of every registry). Used in-tree (plugins/) and,
# through find_package(Kiln), by plugins built against an installed Kiln (plugins/examples/).
function(kiln_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  # Only the entry point (KILN_PLUGIN) is exported; the plugin's own code stays private to it.
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${name} PRIVATE cxx_std_20)
  target_link_libraries(${name} PRIVATE Kiln::plugin_api)
endfunction()

# kiln_add_studio_plugin(NAME SOURCES...): a studio plugin (plugin_host/kiln_studio_plugin.h)
# built as NAME.studio.so, the name by which kiln-studio takes it from KILN_PLUGIN_PATH and kiln
# leaves it (plugin_host/library.h). It links Qt Widgets and no Kiln library: the viewers',
# store's and IR's symbols are resolved from the kiln-studio executable that loads it.
function(kiln_add_studio_plugin name)
  if(NOT TARGET Qt6::Widgets)
    find_package(Qt6 REQUIRED COMPONENTS Widgets)
  endif()
  add_library(${name}_studio MODULE ${ARGN})
  set_target_properties(${name}_studio PROPERTIES PREFIX "" OUTPUT_NAME ${name} SUFFIX ".studio.so" CXX_VISIBILITY_PRESET hidden
                                                  VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${name}_studio PRIVATE cxx_std_20)
  target_link_libraries(${name}_studio PRIVATE Kiln::plugin_api Qt6::Widgets)
endfunction()
